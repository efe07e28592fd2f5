import { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

/** The workspace root: processes run from it, dist/ and docs/ are under it. */
export const ROOT = join(__dirname, '..', '..', '..');

/** What a run measures and for how long; read once from the environment (see main.ts). */
export interface BenchSettings {
  adminUrl: string;
  durationS: number;
  warmupS: number;
  rounds: number;
  connections: number[];
  growthMax: number;
  schedulerRows: number;
  /** Only the load scenarios whose name matches; no profile, scheduler, growth or docs. */
  only: RegExp | null;
  skipBuild: boolean;
}

function readSettings(env: NodeJS.ProcessEnv = process.env): BenchSettings {
  return {
    adminUrl: env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    durationS: Number(env.BENCH_DURATION_S ?? 4),
    warmupS: Number(env.BENCH_WARMUP_S ?? 1),
    rounds: Number(env.BENCH_ROUNDS ?? 2),
    connections: (env.BENCH_CONNECTIONS ?? '10,50,100').split(',').map(Number),
    growthMax: Number(env.BENCH_GROWTH_MAX ?? 1_000_000),
    schedulerRows: Number(env.BENCH_SCHEDULER_ROWS ?? 100_000),
    only: env.BENCH_ONLY ? new RegExp(env.BENCH_ONLY) : null,
    skipBuild: env.BENCH_SKIP_BUILD === 'true',
  };
}

/** One run: its settings and what it must clean up (databases, processes) when it ends. */
export interface BenchContext {
  settings: BenchSettings;
  /** Suffix of this run's database names, so parallel or aborted runs never collide. */
  runId: string;
  /** X-secret of the services and of the baseline's user route. */
  secret: string;
  databases: string[];
  processes: ChildProcess[];
}

export function createContext(settings: BenchSettings = readSettings()): BenchContext {
  return {
    settings,
    runId: randomBytes(3).toString('hex'),
    // The services run with NODE_ENV=production, where X_SECRET needs 32 characters or more.
    secret: 'bench-secret-of-at-least-32-characters',
    databases: [],
    processes: [],
  };
}

export const log = (...parts: unknown[]): void =>
  console.log(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...parts);

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));
