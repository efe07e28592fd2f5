/**
 * The standing targets and how a measured figure is judged by them: the service against its
 * physical limit (the load rows) and the cost of metrics and tracing (the overhead runs).
 */
import { f0 } from './format';
import type { Row } from './rows';

/**
 * The targets of a load row (the project brief): the card-issue POST at least 0.6 of the
 * like-for-like baseline (same SQL and the same user GET over HTTP; the SQL-only ratio is shown,
 * not judged), GET by id at least 0.85 of its baseline, p99 under 50 ms at 50 connections for the
 * GETs, no errors anywhere.
 */
export const LOAD_TARGETS = {
  postRatioWithUserGets: 0.6,
  getByIdRatio: 0.85,
  getP99Ms: 50,
  getP99Connections: 50,
};

/** The targets a row is judged by and whether it met them, `; `-separated ('' if none applies). */
export function loadTargets(row: Row): string {
  const t = LOAD_TARGETS;
  const ratio = row.service.rps / row.baseline.rps;
  const notes: string[] = [];
  if (row.scenario.startsWith('POST /api/v1/card-issue') && row.baselineUserGets) {
    const likeForLike = row.service.rps / row.baselineUserGets.rps;
    notes.push(
      likeForLike >= t.postRatioWithUserGets
        ? `ratio with user GET ok (>= ${t.postRatioWithUserGets})`
        : `RATIO WITH USER GET MISSED (< ${t.postRatioWithUserGets})`,
    );
  }
  if (row.scenario.startsWith('GET /api/v1/card-issue/{id}'))
    notes.push(
      ratio >= t.getByIdRatio
        ? `ratio ok (>= ${t.getByIdRatio})`
        : `RATIO MISSED (< ${t.getByIdRatio})`,
    );
  if (row.connections === t.getP99Connections && row.scenario.startsWith('GET '))
    notes.push(
      row.service.p99 < t.getP99Ms
        ? `p99 ok (< ${t.getP99Ms} ms)`
        : `P99 MISSED (>= ${t.getP99Ms} ms)`,
    );
  if (row.service.errors > 0) notes.push('ERRORS');
  return notes.join('; ');
}

/**
 * The target of the overhead runs: metrics plus 10 %-sampled tracing take at most 15 % of the CPU
 * per request, the throughput a CPU-bound replica loses to them.
 */
export const OVERHEAD_TARGET = { configuration: 'metrics on, tracing 10 %', maxCost: 0.15 };

/**
 * The overhead target judged by the cost in CPU time and, where counted (not null), by the cost
 * in instructions.
 */
export function overheadVerdict(cost: number, instructionsCost: number | null): string {
  const limit = `${f0(100 * OVERHEAD_TARGET.maxCost)} %`;
  const judge = (c: number) =>
    c <= OVERHEAD_TARGET.maxCost ? `ok (<= ${limit})` : `MISSED (> ${limit})`;
  const byCpu = `CPU: ${judge(cost)}`;
  return instructionsCost === null ? byCpu : `${byCpu}; instructions: ${judge(instructionsCost)}`;
}
