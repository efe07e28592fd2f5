import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { closedPort } from './waiting';

/** The workspace root (this file is libs/shared/testing/src/test-process.ts). */
const ROOT = join(__dirname, '..', '..', '..', '..');

/** A service's entry point as `nx serve` runs it from the sources. */
export interface ServiceEntryPoint {
  name: string;
  /** main.ts, from the workspace root. */
  main: string;
  /** The tsconfig swc-node and tsconfig-paths read, from the workspace root. */
  tsconfig: string;
}

export interface TestServiceProcess {
  url: string;
  proc: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** The signal that ended the process, or `code N`; after its output pipes are drained. */
  exited: Promise<string>;
  /** Sends a signal (unless it has ended) and waits for the end. */
  stop(signal: NodeJS.Signals): Promise<void>;
}

/**
 * When a spawned service counts as started: `healthy`, its health check answers 200 (the
 * database too); `live`, its liveness probe answers 200 (the port answers, e.g. while start-up
 * still waits for the database).
 */
export type StartedWhen = 'healthy' | 'live';

/**
 * Starts a service as its own process from the sources (swc-node), as `nx serve` does, on a
 * free loopback port with only the given environment (plus PATH, HOME and NODE_ENV=test), and
 * waits until its health check (or, `live`, its liveness probe) answers 200.
 */
export async function spawnTestService(
  entry: ServiceEntryPoint,
  env: Record<string, string>,
  timeoutMs = 90_000,
  startedWhen: StartedWhen = 'healthy',
): Promise<TestServiceProcess> {
  const port = await closedPort();
  const proc = spawn(
    process.execPath,
    ['-r', '@swc-node/register', '-r', 'tsconfig-paths/register', entry.main],
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        TS_NODE_PROJECT: entry.tsconfig,
        SWC_NODE_PROJECT: entry.tsconfig,
        HOST: '127.0.0.1',
        PORT: String(port),
        NODE_ENV: 'test',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  proc.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  proc.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  // 'close', not 'exit': it comes after the output pipes are drained.
  const exited = new Promise<string>((resolve) =>
    proc.once('close', (code, signal) => resolve(signal ?? `code ${code}`)),
  );
  const url = `http://127.0.0.1:${port}`;
  const child: TestServiceProcess = {
    url,
    proc,
    output: () => output,
    exited,
    stop: async (signal) => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      await exited;
    },
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.exitCode !== null)
      throw new Error(`${entry.name} exited with ${proc.exitCode}:\n${output.slice(-3000)}`);
    try {
      const probe = startedWhen === 'live' ? '/api/health/live' : '/api/health';
      const res = await fetch(`${url}${probe}`, { signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) return child;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await child.stop('SIGKILL');
      throw new Error(`${entry.name} not healthy within ${timeoutMs} ms:\n${output.slice(-3000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Runs a service's main.ts from the sources (as the Nx targets do) with `args`, e.g.
 * `['migrate:show']`, and only the given environment (plus PATH, HOME and NODE_ENV=test);
 * resolves when it ends, with its exit code and everything it wrote.
 */
export function runServiceCommand(
  entry: ServiceEntryPoint,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 90_000,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      ['-r', '@swc-node/register', '-r', 'tsconfig-paths/register', entry.main, ...args],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          TS_NODE_PROJECT: entry.tsconfig,
          SWC_NODE_PROJECT: entry.tsconfig,
          NODE_ENV: 'test',
          ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: timeoutMs,
      },
    );
    let output = '';
    proc.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    proc.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    proc.once('error', reject);
    proc.once('close', (code) => resolve({ code, output }));
  });
}
