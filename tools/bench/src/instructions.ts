/**
 * Instructions per request, counted by valgrind's callgrind in the service process: unlike CPU
 * time they do not depend on what else the machine runs (the same window of requests counts the
 * same whatever the other core does), so they can tell a cost of a few percent that the CPU time
 * of a shared 2-core machine cannot (its runs move by 10-30 %). callgrind runs the process about
 * 50 times slower, so the requests are few and one at a time per connection; what is counted is
 * the main thread (V8's concurrent marking and compilation threads run when they are scheduled,
 * which a window does not decide), split into the request's own code (the mutator) and the
 * garbage collections it triggered on the main thread.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BenchContext, log } from './context';
import { Launch, Running, startCardIssue } from './infra';
import { dumpTotal, gcInstructions, type InstructionCounts } from './callgrind';
import { Scenario } from './scenarios';

/** How much work a count is: requests before counting, per window, windows per process. */
export interface Plan {
  warmup: number;
  perWindow: number;
  windows: number;
}

/**
 * The plan per method: a POST costs about six GETs (and makes the user GET in the same process).
 * The warm-up is what V8 needs to finish optimizing the hot code: a GET by id with both off
 * counted 448 k instructions after 3,000 GETs, 418 k after 10,000 and 384 k after 30,000; a POST
 * 4.60 M after 600 POSTs, 4.35 M after 2,000 and 4.43 M after 6,000 (docs/benchmarks.md).
 */
export const INSTRUCTION_PLANS: Record<'GET' | 'POST', Plan> = {
  GET: { warmup: 30_000, perWindow: 400, windows: 3 },
  POST: { warmup: 2_000, perWindow: 100, windows: 3 },
};

function planFor(scenario: Scenario): Plan {
  return INSTRUCTION_PLANS[scenario.method === 'POST' ? 'POST' : 'GET'];
}

/** Requests in flight at once while counting. */
export const DRIVE_CONCURRENCY = 4;

/** Processes per configuration: each compiles its hot code its own way (see overhead.ts). */
export const INSTRUCTION_PROCESSES = 3;

/** Whether valgrind and callgrind_control are on the machine (they are not a dependency). */
export function callgrindAvailable(): boolean {
  const ok = (command: string, args: string[]) =>
    spawnSync(command, args, { stdio: 'ignore' }).status === 0;
  return ok('valgrind', ['--version']) && ok('callgrind_control', ['--version']);
}

/** Runs `count` requests of `scenario` against `url`, DRIVE_CONCURRENCY at a time. */
async function drive(url: string, scenario: Scenario, count: number) {
  let left = count;
  const worker = async () => {
    while (left-- > 0) {
      const res = await fetch(`${url}${scenario.path()}`, {
        method: scenario.method,
        headers: { 'content-type': 'application/json', ...scenario.headers },
        body: scenario.body ? JSON.stringify(scenario.body()) : undefined,
      });
      await res.arrayBuffer();
      if (res.status >= 300) throw new Error(`${scenario.name} answered ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: DRIVE_CONCURRENCY }, worker));
}

/** The instruction total of a callgrind dump file. */
function totalOf(file: string): number {
  return dumpTotal(readFileSync(file, 'utf8'));
}

/** Instructions spent in V8's garbage collections on the thread of `file`, inclusive. */
function gcOf(file: string): number {
  return gcInstructions(
    execFileSync('callgrind_annotate', ['--inclusive=yes', file], {
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    }),
  );
}

/** One card-issue process under callgrind: warmed up natively, then `plan.windows` counted windows. */
async function countOneProcess(
  ctx: BenchContext,
  cardDb: string,
  env: Record<string, string>,
  scenario: Scenario,
): Promise<{ mutator: number; gc: number }> {
  const plan = planFor(scenario);
  const dir = mkdtempSync(join(tmpdir(), 'bench-callgrind-'));
  const launch: Launch = {
    prefix: [
      'valgrind',
      '--tool=callgrind',
      // Not counted (and about 10 times faster) until switched on, after the warm-up.
      '--instr-atstart=no',
      // One dump per thread: the main thread's is what a window's requests did.
      '--separate-threads=yes',
      // V8 writes and rewrites the machine code it runs.
      '--smc-check=all-non-file',
      `--callgrind-out-file=${join(dir, 'callgrind.%p')}`,
    ],
    startTimeoutMs: 300_000,
  };
  let service: Running | null = null;
  try {
    service = await startCardIssue(
      ctx,
      cardDb,
      // A POST's user GET goes to the same, 10 to 50 times slower, process: the gateway's usual
      // 2 s would answer 503.
      { ...env, DOWNSTREAM_TIMEOUT_MS: '60000', DOWNSTREAM_REQUEST_BUDGET_MS: '120000' },
      [],
      launch,
    );
    const pid = String(service.proc.pid);
    // callgrind_control finds the process by a pipe named after the HOST of its environment.
    const control = (command: string) =>
      execFileSync('callgrind_control', [command, pid], {
        env: { ...process.env, HOST: '127.0.0.1' },
        stdio: 'ignore',
      });
    await drive(service.url, scenario, plan.warmup);
    control('--instr=on');
    // valgrind translates the code anew once counting: not counted either.
    await drive(service.url, scenario, plan.perWindow / 4);
    const mutator: number[] = [];
    let gc = 0;
    for (let window = 0; window < plan.windows; window++) {
      const before = new Set(readdirSync(dir));
      control('--zero');
      await drive(service.url, scenario, plan.perWindow);
      control('--dump');
      const mainThread = readdirSync(dir).find((f) => !before.has(f) && f.endsWith('-01'));
      if (!mainThread) throw new Error(`callgrind wrote no dump of the main thread in ${dir}`);
      const total = totalOf(join(dir, mainThread));
      const collections = gcOf(join(dir, mainThread));
      mutator.push((total - collections) / plan.perWindow);
      gc += collections;
    }
    mutator.sort((a, b) => a - b);
    return {
      mutator: mutator[Math.floor(mutator.length / 2)],
      gc: gc / (plan.perWindow * plan.windows),
    };
  } finally {
    await service?.stop('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Instructions per request of `scenario` for each configuration (its environment), over
 * INSTRUCTION_PROCESSES processes each, two processes at a time (callgrind runs one thread at a
 * time, and counts do not depend on the other core).
 */
export async function countInstructions(
  ctx: BenchContext,
  cardDb: string,
  configurations: { name: string; env: Record<string, string> }[],
  scenario: Scenario,
): Promise<InstructionCounts[]> {
  const counts: InstructionCounts[] = configurations.map(() => ({ mutator: [], gc: [] }));
  const jobs = Array.from({ length: INSTRUCTION_PROCESSES }, (_, p) =>
    configurations.map((_c, i) => ({ i, p })),
  ).flat();
  const worker = async () => {
    for (let job = jobs.shift(); job; job = jobs.shift()) {
      const { i, p } = job;
      const one = await countOneProcess(ctx, cardDb, configurations[i].env, scenario);
      counts[i].mutator.push(one.mutator);
      counts[i].gc.push(one.gc);
      log(
        `instructions: ${scenario.name}, ${configurations[i].name}, process ${p + 1}: ` +
          `${(one.mutator / 1e3).toFixed(0)} k + gc ${(one.gc / 1e3).toFixed(0)} k per request`,
      );
    }
  };
  await Promise.all([worker(), worker()]);
  return counts;
}
