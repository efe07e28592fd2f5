import autocannon from 'autocannon';
import { BenchContext, log } from './context';
import { Running, cpuMs, rssMb } from './infra';
import { Scenario } from './scenarios';
import { describeRow, type Row, type RunResult } from './rows';

/** One autocannon run of `scenario` against `target`, sampling the peak RSS of its process. */
export async function load(
  target: Running,
  scenario: Scenario,
  connections: number,
  seconds: number,
): Promise<RunResult> {
  const pid = target.proc.pid;
  let maxRss = rssMb(pid);
  const sampler = setInterval(() => (maxRss = Math.max(maxRss, rssMb(pid))), 250);
  const cpuBefore = cpuMs(pid);
  try {
    const result = await autocannon({
      url: target.url,
      connections,
      duration: seconds,
      timeout: 10,
      requests: [
        {
          method: scenario.method,
          path: scenario.path(),
          headers: { 'content-type': 'application/json', ...scenario.headers },
          setupRequest: (req) => ({
            ...req,
            path: scenario.path(),
            body: scenario.body ? JSON.stringify(scenario.body()) : undefined,
          }),
        },
      ],
    });
    return {
      rps: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.errors + result.timeouts + result.non2xx,
      rssMb: maxRss,
      cpuMsPerRequest: (cpuMs(pid) - cpuBefore) / Math.max(1, result.requests.total),
      requests: result.requests.total,
    };
  } finally {
    clearInterval(sampler);
  }
}

/** How the rounds of one target are combined into one result. */
export type Combine = 'mean' | 'median';

export function combine(results: RunResult[], how: Combine): RunResult {
  const pick = (f: (r: RunResult) => number) => {
    if (how === 'mean') return results.reduce((s, r) => s + f(r), 0) / results.length;
    const sorted = results.map(f).sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  };
  return {
    rps: pick((r) => r.rps),
    p50: pick((r) => r.p50),
    p99: pick((r) => r.p99),
    errors: results.reduce((s, r) => s + r.errors, 0),
    rssMb: Math.max(...results.map((r) => r.rssMb)),
    cpuMsPerRequest: pick((r) => r.cpuMsPerRequest),
    requests: results.reduce((s, r) => s + r.requests, 0),
  };
}

/** The processes the load runs go to. */
export interface LoadTargets {
  card: Running;
  registration: Running;
  /** Baseline of card-issue reading users straight from the database. */
  cardBaseline: Running;
  /** Baseline of card-issue GETting users from its own user route over HTTP, as the service does. */
  cardBaselineUserGets: Running;
  registrationBaseline: Running;
  /** card-issue with AUTH_MODE=jwt on the same database (the bearer JWT scenario). */
  cardJwt: Running;
}

export async function stopAll(targets: LoadTargets): Promise<void> {
  const all: Running[] = [
    targets.card,
    targets.registration,
    targets.cardBaseline,
    targets.cardBaselineUserGets,
    targets.registrationBaseline,
    targets.cardJwt,
  ];
  for (const running of all) await running.stop();
}

/**
 * `rounds` warmed-up runs of `scenario` against each target in turn, every run of each target;
 * `settings` overrides the run's rounds and durations.
 */
export async function measureRounds(
  ctx: BenchContext,
  targets: Running[],
  scenario: Scenario,
  connections: number,
  settings: Pick<BenchContext['settings'], 'rounds' | 'warmupS' | 'durationS'> = ctx.settings,
): Promise<RunResult[][]> {
  const results: RunResult[][] = targets.map(() => []);
  // Alternating rounds, so drift on a noisy machine hits every side alike.
  for (let round = 0; round < settings.rounds; round++) {
    const runs = await measureRound(targets, scenario, connections, settings, round);
    runs.forEach((run, i) => results[i].push(run));
  }
  return results;
}

/**
 * One round: a warm-up and a measured run of `scenario` against each target in turn, starting
 * with target `round` (mod their number), so that none always runs first (after the longest
 * rest) or last. The runs in the targets' order.
 */
export async function measureRound(
  targets: Running[],
  scenario: Scenario,
  connections: number,
  settings: Pick<BenchContext['settings'], 'warmupS' | 'durationS'>,
  round: number,
): Promise<RunResult[]> {
  const runs: RunResult[] = new Array<RunResult>(targets.length);
  for (let turn = 0; turn < targets.length; turn++) {
    const i = (round + turn) % targets.length;
    await load(targets[i], scenario, connections, settings.warmupS);
    runs[i] = await load(targets[i], scenario, connections, settings.durationS);
  }
  return runs;
}

/** The mean (or median) of each target's runs of measureRounds. */
export async function measure(
  ctx: BenchContext,
  targets: Running[],
  scenario: Scenario,
  connections: number,
  how: Combine = 'mean',
  settings: Pick<BenchContext['settings'], 'rounds' | 'warmupS' | 'durationS'> = ctx.settings,
): Promise<RunResult[]> {
  const results = await measureRounds(ctx, targets, scenario, connections, settings);
  return results.map((r) => combine(r, how));
}

/** Every scenario (BENCH_ONLY ones only, if set) at every connection count. */
export async function runLoadScenarios(
  ctx: BenchContext,
  targets: LoadTargets,
  scenarios: Scenario[],
): Promise<Row[]> {
  const { only, connections: connectionCounts } = ctx.settings;
  const rows: Row[] = [];
  for (const scenario of scenarios.filter((s) => !only || only.test(s.name))) {
    const sides =
      scenario.target === 'cardJwt'
        ? [targets.cardJwt, targets.card]
        : scenario.service === 'reg'
          ? [targets.registration, targets.registrationBaseline]
          : [
              targets.card,
              targets.cardBaseline,
              ...(scenario.userGets ? [targets.cardBaselineUserGets] : []),
            ];
    for (const connections of connectionCounts) {
      const [service, baseline, baselineUserGets] = await measure(
        ctx,
        sides,
        scenario,
        connections,
      );
      const row: Row = {
        scenario: scenario.name,
        connections,
        service,
        baseline,
        baselineUserGets,
      };
      rows.push(row);
      log(describeRow(row));
    }
  }
  return rows;
}
