import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { AddressInfo, createServer, createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Debian's pgbouncer (package `pgbouncer`; .ci/run installs it). */
export const PGBOUNCER_PATH = '/usr/sbin/pgbouncer';

/**
 * Whether the tests that need a real PgBouncer in front of a real PostgreSQL run: not without
 * pgbouncer or without TEST_DATABASE_URL, except that under CI=true a missing pgbouncer fails
 * them. (A function, not a describe: this module also loads outside Jest, in the bench.)
 */
export function pgBouncerTestsRun(): boolean {
  return Boolean(process.env.TEST_DATABASE_URL && (existsSync(PGBOUNCER_PATH) || process.env.CI));
}

export interface PgBouncer {
  /** `url` with host and port replaced by PgBouncer's: the pooled URL of the same database. */
  pooledUrl(url: string): string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitForPort(port: number, proc: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`pgbouncer exited: ${log()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host: '127.0.0.1' }, () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`pgbouncer did not listen on ${port}: ${log()}`);
}

/**
 * Starts PgBouncer in transaction pooling mode on a free loopback port, in front of the
 * PostgreSQL server of `serverUrl` (every database name passes through; trust
 * authentication, as the local test server has). It refuses to run as root, so it runs as
 * the `postgres` user when started by root. `settings` adds or overrides `[pgbouncer]` settings
 * (e.g. `server_login_retry` in front of a failover proxy).
 */
export async function startPgBouncer(
  serverUrl: string,
  poolSize = 10,
  settings: Record<string, string | number> = {},
): Promise<PgBouncer> {
  const server = new URL(serverUrl);
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'pgbouncer-'));
  chmodSync(dir, 0o755);
  const userlist = path.join(dir, 'userlist.txt');
  writeFileSync(userlist, `"${decodeURIComponent(server.username || 'postgres')}" ""\n`);
  const config = path.join(dir, 'pgbouncer.ini');
  writeFileSync(
    config,
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${userlist}`,
      'pool_mode = transaction',
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 500',
      // pg (node-postgres) sends none; psql and others send this one.
      'ignore_startup_parameters = extra_float_digits',
      ...Object.entries(settings).map(([name, value]) => `${name} = ${value}`),
    ].join('\n') + '\n',
  );
  const asRoot = process.getuid?.() === 0;
  const proc = spawn(PGBOUNCER_PATH, [...(asRoot ? ['-u', 'postgres'] : []), config], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  proc.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  proc.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  try {
    await waitForPort(port, proc, () => output);
  } catch (error) {
    proc.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    pooledUrl(url: string) {
      const pooled = new URL(url);
      pooled.hostname = '127.0.0.1';
      pooled.port = String(port);
      return pooled.toString();
    },
    async stop() {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
