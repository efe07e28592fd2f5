import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..', '..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface ChildService {
  url: string;
  proc: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Sends a signal and waits for the exit. */
  stop(signal: NodeJS.Signals): Promise<void>;
}

/**
 * Starts a service as its own process from the sources (swc-node), as `nx serve` does,
 * on a free loopback port, and waits until its health check answers UP.
 */
export async function spawnService(
  app: 'card-issue' | 'client-registration',
  env: Record<string, string>,
  timeoutMs = 90_000,
): Promise<ChildService> {
  const port = await freePort();
  const tsconfig = `apps/${app}/tsconfig.app.json`;
  const proc = spawn(
    process.execPath,
    ['-r', '@swc-node/register', '-r', 'tsconfig-paths/register', `apps/${app}/src/main.ts`],
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        TS_NODE_PROJECT: tsconfig,
        SWC_NODE_PROJECT: tsconfig,
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
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const child: ChildService = {
    url,
    proc,
    output: () => output,
    stop: async (signal) => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      await exited;
    },
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.exitCode !== null)
      throw new Error(`${app} exited with ${proc.exitCode}:\n${output.slice(-3000)}`);
    try {
      const res = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) return child;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await child.stop('SIGKILL');
      throw new Error(`${app} not healthy within ${timeoutMs} ms:\n${output.slice(-3000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
