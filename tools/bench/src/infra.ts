import { ChildProcess, execSync, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import {
  INSERT_CARD_ISSUE_SQL,
  SELECT_CARD_ISSUES_BY_CLIENT_SQL,
  SELECT_CARD_ISSUE_BY_ID_SQL,
  type SqlSession,
} from '@bank/card-issue/testing';
import { statementsEnv } from './baseline-statements';
import { BenchContext, ROOT, createContext, log, sleep } from './context';

// ---------------------------------------------------------------- databases

function databaseUrl(ctx: BenchContext, name: string): string {
  const url = new URL(ctx.settings.adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs `work` on a fresh connection to `url` and closes it. */
export async function withClient<T>(url: string, work: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The connection `client` as the session seedCardIssues runs on. */
export function session(client: Client): SqlSession {
  return async (sql) => (await client.query<Record<string, unknown>>(sql)).rows;
}

/** A throw-away database bench_<label>_<run id>, dropped by cleanup(). Returns its URL. */
export async function createDatabase(ctx: BenchContext, label: string): Promise<string> {
  const name = `bench_${label}_${ctx.runId}`;
  await withClient(ctx.settings.adminUrl, (c) => c.query(`CREATE DATABASE "${name}"`));
  ctx.databases.push(name);
  return databaseUrl(ctx, name);
}

function postgresVersion(ctx: BenchContext): Promise<string> {
  return withClient(ctx.settings.adminUrl, async (c) => {
    const { rows } = await c.query<{ v: string }>("SELECT current_setting('server_version') AS v");
    return `PostgreSQL ${rows[0].v}`;
  });
}

// ---------------------------------------------------------------- services

/** Builds both services unless BENCH_SKIP_BUILD=true and a bundle is there already. */
export function buildServices(ctx: BenchContext): void {
  if (ctx.settings.skipBuild && existsSync(join(ROOT, CARD_ISSUE_BUNDLE))) return;
  log('building both services (npx nx run-many -t build)');
  const build = spawnSync(
    'npx',
    ['nx', 'run-many', '-t', 'build', '-p', 'card-issue', 'client-registration'],
    { cwd: ROOT, stdio: 'inherit' },
  );
  if (build.status !== 0) throw new Error('build failed');
}

/** The card-issue schema in `url`, through the bundle's own `migrate` command. */
export function migrateCardIssue(ctx: BenchContext, url: string): void {
  const result = spawnSync(process.execPath, [CARD_ISSUE_BUNDLE, 'migrate'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: url,
      LOG_LEVEL: 'warn',
      X_SECRET: ctx.secret,
    },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`migrate failed: ${result.stderr}${result.stdout}`);
}

export interface Running {
  name: string;
  url: string;
  proc: ChildProcess;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** How a service process is run: under another program (a profiler), and how long it may take to start. */
export interface Launch {
  /** The command and arguments put in front of `node`, e.g. valgrind's. */
  prefix: string[];
  startTimeoutMs: number;
}

/** Spawns `node args` on a free port and waits until GET /api/health answers 200. */
async function startProcess(
  ctx: BenchContext,
  name: string,
  args: string[],
  env: Record<string, string>,
  launch: Launch = { prefix: [], startTimeoutMs: 60_000 },
): Promise<Running> {
  const port = await freePort();
  const [command, ...prefixArgs] = [...launch.prefix, process.execPath];
  const proc = spawn(command, [...prefixArgs, ...args], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      HOST: '127.0.0.1',
      PORT: String(port),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  ctx.processes.push(proc);
  let output = '';
  proc.stdout?.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-5000)));
  proc.stderr?.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-5000)));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + launch.startTimeoutMs;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${name} exited ${proc.exitCode}: ${output}`);
    try {
      const health = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(1_000) });
      if (health.status === 200) break;
    } catch {
      // still starting
    }
    if (Date.now() > deadline) throw new Error(`${name} did not start: ${output}`);
    await sleep(200);
  }
  return {
    name,
    url,
    proc,
    stop: async (signal = 'SIGTERM') => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      await exited;
    },
  };
}

function serviceEnv(ctx: BenchContext): Record<string, string> {
  return { LOG_LEVEL: 'warn', NODE_ENV: 'production', AUTH_MODE: 'none', X_SECRET: ctx.secret };
}

/** The card-issue production bundle of the workspace (relative to ROOT). */
export const CARD_ISSUE_BUNDLE = 'dist/apps/card-issue/main.js';

/** card-issue from its production bundle; scheduler and outbox delivery off unless `extra` says. */
export function startCardIssue(
  ctx: BenchContext,
  url: string,
  extra: Record<string, string> = {},
  nodeArgs: string[] = [],
  launch?: Launch,
): Promise<Running> {
  return startCardIssueFrom(ctx, CARD_ISSUE_BUNDLE, url, extra, nodeArgs, launch);
}

/** card-issue from `bundle` (a main.js, relative to ROOT or absolute), as startCardIssue. */
export function startCardIssueFrom(
  ctx: BenchContext,
  bundle: string,
  url: string,
  extra: Record<string, string> = {},
  nodeArgs: string[] = [],
  launch?: Launch,
): Promise<Running> {
  return startProcess(
    ctx,
    bundle === CARD_ISSUE_BUNDLE ? 'card-issue' : `card-issue (${bundle})`,
    [...nodeArgs, bundle],
    {
      ...serviceEnv(ctx),
      DATABASE_URL: url,
      SCHEDULER_ENABLED: 'false',
      OUTBOX_ENABLED: 'false',
      ...extra,
    },
    launch,
  );
}

/** Starts the processes one after the other; if one fails, stops those already started. */
export async function startEach(starts: (() => Promise<Running>)[]): Promise<Running[]> {
  const started: Running[] = [];
  try {
    for (const start of starts) started.push(await start());
    return started;
  } catch (error) {
    for (const running of started) await running.stop();
    throw error;
  }
}

export function startRegistration(
  ctx: BenchContext,
  url: string,
  extra: Record<string, string> = {},
): Promise<Running> {
  return startProcess(ctx, 'client-registration', ['dist/apps/client-registration/main.js'], {
    ...serviceEnv(ctx),
    DATABASE_URL: url,
    ...extra,
  });
}

/**
 * The physical-limit server (baseline-server.ts). `userLookup` says how a card issue POST
 * reads its users: `sql` straight from the database, `http` through its own user route as
 * the service does.
 */
export function startBaseline(
  ctx: BenchContext,
  url: string,
  userLookup: 'sql' | 'http' = 'sql',
): Promise<Running> {
  return startProcess(
    ctx,
    `baseline (users by ${userLookup})`,
    ['-r', '@swc-node/register', 'tools/bench/src/baseline-server.ts'],
    {
      SWC_NODE_PROJECT: 'tools/bench/tsconfig.json',
      DATABASE_URL: url,
      DB_POOL_SIZE: '10',
      USER_LOOKUP: userLookup,
      X_SECRET: ctx.secret,
      ...statementsEnv({
        insertCardIssue: INSERT_CARD_ISSUE_SQL,
        selectCardIssueById: SELECT_CARD_ISSUE_BY_ID_SQL,
        selectCardIssuesByClient: SELECT_CARD_ISSUES_BY_CLIENT_SQL,
      }),
    },
  );
}

// ---------------------------------------------------------------- machine and clean-up

export interface Machine {
  cores: number;
  cpuModel: string;
  memory: string;
  node: string;
  postgres: string;
}

export async function describeMachine(ctx: BenchContext): Promise<Machine> {
  let memory: string;
  try {
    memory = execSync('free -h', { encoding: 'utf8' }).trim();
  } catch {
    memory = '(free not available)';
  }
  return {
    cores: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? 'unknown model',
    memory,
    node: process.version,
    postgres: await postgresVersion(ctx),
  };
}

/** Kills what is still running and drops this run's databases. */
export async function cleanup(ctx: BenchContext): Promise<void> {
  for (const p of ctx.processes)
    if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  await sleep(500);
  for (const name of ctx.databases) {
    await withClient(ctx.settings.adminUrl, (c) =>
      c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
    ).catch((e: unknown) => log('drop failed', name, e));
  }
}

/** Runs a bench entry point with a fresh context; cleans up after it, whether it failed or not. */
export function runWithContext(main: (ctx: BenchContext) => Promise<void>): void {
  const ctx = createContext();
  main(ctx)
    .then(() => cleanup(ctx))
    .catch(async (error: unknown) => {
      console.error(error);
      await cleanup(ctx);
      process.exit(1);
    });
}
