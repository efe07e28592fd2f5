/**
 * The CPU per request of the card-issue bundle of another build (BENCH_BEFORE_DIST, e.g. one built
 * from the commit before a change) against the workspace's dist/, in the same run on the same
 * database: BENCH_ONLY='before after'. Printed only; docs/benchmarks.md is left as is.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BenchContext, ROOT, log } from './context';
import { startCardIssue, startCardIssueFrom, startEach } from './infra';
import { measureFreshRounds } from './load';
import type { RunResult } from './rows';
import { Scenario } from './scenarios';
import { compareRounds } from './stats';

/** The name BENCH_ONLY matches to run the before/after comparison. */
export const BEFORE_AFTER = 'before after';

/** Rounds and durations of the comparison. */
export interface BeforeAfterSettings {
  rounds: number;
  warmupS: number;
  durationS: number;
}

/**
 * BENCH_ROUNDS, BENCH_WARMUP_S and BENCH_DURATION_S where set, else the overhead runs' 9 rounds of
 * 1 s warm-up and 5 s measured: a change of a few percent needs many rounds on a shared machine
 * (a single run moves by 10-30 %), a quick look fewer.
 */
export function beforeAfterSettings(env: NodeJS.ProcessEnv = process.env): BeforeAfterSettings {
  const given = (name: string, otherwise: number) => {
    const value = env[name] ? Number(env[name]) : otherwise;
    if (!(value > 0)) throw new Error(`${name}=${env[name]}: expected a positive number`);
    return value;
  };
  return {
    rounds: given('BENCH_ROUNDS', 9),
    warmupS: given('BENCH_WARMUP_S', 1),
    durationS: given('BENCH_DURATION_S', 5),
  };
}

/**
 * The card-issue bundle of BENCH_BEFORE_DIST (a dist/ directory: <dist>/apps/card-issue/main.js),
 * absolute; throws if it is not set or holds no such bundle, before anything is started.
 */
export function beforeBundle(env: NodeJS.ProcessEnv = process.env): string {
  const dist = env.BENCH_BEFORE_DIST;
  if (!dist)
    throw new Error(
      `BENCH_ONLY matches '${BEFORE_AFTER}': set BENCH_BEFORE_DIST to the dist/ of the build to compare with`,
    );
  const bundle = join(resolve(ROOT, dist), 'apps', 'card-issue', 'main.js');
  if (!existsSync(bundle)) throw new Error(`BENCH_BEFORE_DIST=${dist}: no ${bundle}`);
  return bundle;
}

export interface BeforeAfterRow {
  scenario: string;
  connections: number;
  /** Req/s and latencies the median of the rounds, CPU per request pooled over them. */
  before: RunResult;
  after: RunResult;
  /** after / before - 1 of the pooled CPU per request: negative is cheaper. */
  change: number;
  /** The same from the first and third quartiles of the rounds' own ratios (paired by round). */
  changeSpread: [number, number];
}

export interface BeforeAfterResult {
  bundle: string;
  settings: BeforeAfterSettings;
  rows: BeforeAfterRow[];
}

/** The rows of `runs[scenario][before, after][round]`. */
export function beforeAfterRows(
  scenarios: string[],
  connections: number,
  runs: RunResult[][][],
): BeforeAfterRow[] {
  return scenarios.map((scenario, s) => {
    const [before, after] = compareRounds(runs[s]);
    return {
      scenario,
      connections,
      before: before.result,
      after: after.result,
      change: after.ratio - 1,
      changeSpread: [after.ratioQuartiles[0] - 1, after.ratioQuartiles[1] - 1],
    };
  });
}

/**
 * Both bundles on `cardDb` (migrated by the workspace's bundle: a schema an older build runs on as
 * long as the migrations in between only add), with metrics on and tracing off (the production
 * defaults), in new processes every round (measureFreshRounds: the same machinery as the
 * observability overhead runs, each round starting with the other bundle), 50 connections. The
 * bundle of another build resolves its packages from the workspace's node_modules (NODE_PATH):
 * the comparison is of the code, on the same dependencies.
 */
export async function beforeAfterBench(
  ctx: BenchContext,
  cardDb: string,
  scenarios: Scenario[],
  bundle: string,
  settings: BeforeAfterSettings,
): Promise<BeforeAfterResult> {
  const connections = 50;
  const env = {
    DB_MIGRATIONS_RUN: 'false',
    METRICS_ENABLED: 'true',
    NODE_PATH: join(ROOT, 'node_modules'),
  };
  log(
    `${BEFORE_AFTER}: ${bundle} against the workspace's bundle, ${settings.rounds} rounds of ` +
      `${settings.warmupS} s + ${settings.durationS} s per bundle and scenario`,
  );
  const runs = await measureFreshRounds(
    () =>
      startEach([
        () => startCardIssueFrom(ctx, bundle, cardDb, env),
        () => startCardIssue(ctx, cardDb, env),
      ]),
    scenarios,
    connections,
    settings,
    BEFORE_AFTER,
  );
  const rows = beforeAfterRows(
    scenarios.map((s) => s.name),
    connections,
    runs,
  );
  for (const row of rows)
    log(
      `${row.scenario} c=${connections}: ${row.before.cpuMsPerRequest.toFixed(3)} -> ` +
        `${row.after.cpuMsPerRequest.toFixed(3)} ms CPU per request (${(100 * row.change).toFixed(1)} %)`,
    );
  return { bundle, settings, rows };
}
