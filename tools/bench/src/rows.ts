/**
 * What a load run gives and the rows of the service-against-baseline table: the types every
 * bench module shares, apart from the modules that measure them (load.ts) and print them
 * (report.ts), so that neither has to import the other.
 */
import type { Result } from 'autocannon';
import { f0, f1, f2 } from './format';

export interface RunResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  rssMb: number;
  /**
   * CPU time (user + system) the target process spent per request answered: unlike req/s it
   * hardly depends on what else runs on the machine.
   */
  cpuMsPerRequest: number;
  /** Requests answered (all rounds, when combined). */
  requests: number;
}

export interface Row {
  scenario: string;
  connections: number;
  service: RunResult;
  baseline: RunResult;
  /** Only for scenarios whose service GETs users over HTTP. */
  baselineUserGets?: RunResult;
}

/**
 * One autocannon run as a RunResult, with the CPU time the target process used during it and its
 * peak RSS. Errors are the connection errors and the non-2xx answers: autocannon's `errors` counts
 * its timeouts already (`timeouts` is the part of them that timed out).
 */
export function runResultOf(result: Result, cpuMsUsed: number, maxRssMb: number): RunResult {
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
    rssMb: maxRssMb,
    cpuMsPerRequest: cpuMsUsed / Math.max(1, result.requests.total),
    requests: result.requests.total,
  };
}

/** `service / baseline / baseline with user GET` of one figure, the last only where measured. */
export function sides(row: Row, figure: (r: RunResult) => string): string {
  return [row.service, row.baseline, row.baselineUserGets]
    .filter((r): r is RunResult => r !== undefined)
    .map(figure)
    .join(' / ');
}

/** One line per measured row, for the log while the bench runs. */
export function describeRow(row: Row): string {
  const withGet = row.baselineUserGets
    ? `, baseline with user GET ${f0(row.baselineUserGets.rps)} req/s, ratio ${f2(row.service.rps / row.baselineUserGets.rps)}`
    : '';
  return (
    `${row.scenario} c=${row.connections}: service ${f0(row.service.rps)} req/s p99 ${f1(row.service.p99)} ms, ` +
    `baseline ${f0(row.baseline.rps)} req/s, ratio ${f2(row.service.rps / row.baseline.rps)}${withGet}, ` +
    `errors ${sides(row, (x) => String(x.errors))}`
  );
}
