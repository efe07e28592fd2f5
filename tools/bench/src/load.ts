import autocannon from 'autocannon';
import { BenchContext, log } from './context';
import { Running } from './infra';
import { cpuMs, rssMb } from './proc';
import { Scenario } from './scenarios';
import { describeRow, runResultOf, type Row, type RunResult } from './rows';
import { combine, type Combine } from './stats';

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
    return runResultOf(result, cpuMs(pid) - cpuBefore, maxRss);
  } finally {
    clearInterval(sampler);
  }
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

/** Seconds of each scenario a new process runs before its first measured run (measureFreshRounds). */
export const FIRST_WARMUP_S = 5;

/**
 * `settings.rounds` rounds of every scenario against new processes, started by `start` afresh for
 * every round and stopped at its end: `runs[scenario][process][round]`. How V8 compiles a
 * process's hot code differs from one process to the next and stays with it (instruction counts of
 * the same bundle differ by up to 12 % between processes and by 1-2 % between windows of one), so
 * one process per side for the whole run would lend that side its one process's luck. Each new
 * process first runs FIRST_WARMUP_S of each scenario: it spends its first seconds compiling its hot
 * code (on threads whose CPU time counts), and 2 s of warm-up measured it 60 % dearer per GET than
 * a warm one. Then each scenario is one measureRound, the processes in turn.
 */
export async function measureFreshRounds(
  start: () => Promise<Running[]>,
  scenarios: Scenario[],
  connections: number,
  settings: Pick<BenchContext['settings'], 'rounds' | 'warmupS' | 'durationS'>,
  label: string,
): Promise<RunResult[][][]> {
  const runs: RunResult[][][] = scenarios.map(() => []);
  for (let round = 0; round < settings.rounds; round++) {
    const targets = await start();
    try {
      for (const target of targets)
        for (const scenario of scenarios) await load(target, scenario, connections, FIRST_WARMUP_S);
      for (const [s, scenario] of scenarios.entries()) {
        const measured = await measureRound(targets, scenario, connections, settings, round);
        measured.forEach((run, i) => (runs[s][i] ??= []).push(run));
      }
    } finally {
      for (const target of targets) await target.stop();
    }
    log(`${label}: round ${round + 1} of ${settings.rounds} done`);
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
