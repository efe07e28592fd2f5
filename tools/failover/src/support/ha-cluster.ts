import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { eventually, sleep } from '@bank/shared/testing';

/** Debian's packages the cluster is made of (.ci/run installs them). */
export const HA_BINARIES = {
  patroni: '/usr/bin/patroni',
  etcd: '/usr/bin/etcd',
  haproxy: '/usr/sbin/haproxy',
  pgbouncer: '/usr/sbin/pgbouncer',
  postgres: '/usr/lib/postgresql/15/bin/postgres',
};
export const PG_BIN_DIR = path.dirname(HA_BINARIES.postgres);

/** The binaries of HA_BINARIES that are not on this machine. */
export function missingHaBinaries(): string[] {
  return Object.values(HA_BINARIES).filter((file) => !existsSync(file));
}

/**
 * Patroni's timing. ttl 10 s: the leader key outlives a dead leader by at most that; loop_wait
 * 1 s: every member looks at the key each second, so a replica starts its promotion within a
 * second of the key expiring (and the leader renews it every second, far inside the ttl);
 * retry_timeout 4 s: how long the leader retries a failing DCS or PostgreSQL call before it
 * demotes itself. Patroni wants ttl >= loop_wait + 2 x retry_timeout (1 + 8 <= 10).
 */
export const PATRONI_TIMING = { ttl: 10, loop_wait: 1, retry_timeout: 4 };
/** The most a replica may lag (bytes of WAL) and still be promoted. */
export const MAXIMUM_LAG_ON_FAILOVER = 1_048_576;

export interface HaClusterOptions {
  /** First of the ports the cluster takes (etcd, HAProxy, then two per node). */
  portBase: number;
  /** Patroni's synchronous_mode. */
  synchronous: boolean;
  nodes?: number;
}

export interface HaMember {
  name: string;
  role: string;
  state: string;
  lag?: number | string;
  timeline?: number;
}

export interface HaNode {
  name: string;
  pgPort: number;
  restPort: number;
  dataDir: string;
  /** The running Patroni, or null once it is stopped or killed. */
  patroni: ChildProcess | null;
}

interface Started {
  proc: ChildProcess;
  /** The end of what it logged (stdout and stderr go to a file: its children inherit them). */
  output: () => string;
  exited: Promise<void>;
}

/**
 * A process of ours, in a process group of its own (so its children can be ended with it),
 * logging to `logFile`. Not pipes: the postmaster Patroni starts would inherit and hold them.
 */
function start(
  command: string,
  args: string[],
  options: { cwd: string; logFile: string; asPostgres?: boolean; env?: Record<string, string> },
): Started {
  const ids = options.asPostgres ? postgresIds() : undefined;
  const log = openSync(options.logFile, 'a');
  const proc = spawn(command, args, {
    cwd: options.cwd,
    detached: true,
    stdio: ['ignore', log, log],
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      LC_ALL: 'C.UTF-8',
      LANG: 'C.UTF-8',
      HOME: options.cwd,
      ...options.env,
    },
    ...(ids ?? {}),
  });
  closeSync(log);
  const output = () => {
    try {
      return readFileSync(options.logFile, 'utf8').slice(-20_000);
    } catch {
      return '';
    }
  };
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  return { proc, output, exited };
}

/** PostgreSQL refuses root: started by root, its processes run as the `postgres` user. */
function postgresIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

function alive(proc: ChildProcess | null): proc is ChildProcess {
  return proc !== null && proc.exitCode === null && proc.signalCode === null;
}

/** The process group of a process (the fifth field of /proc/<pid>/stat), or null when gone. */
function processGroup(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  } catch {
    return null;
  }
}

/** Signals a whole process group; false when it is gone already. */
function killGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' }, () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** One statement in a connection of its own (a failover may end any other). */
export async function query<T>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function getJson<T>(url: string, timeoutMs = 2_000): Promise<T | null> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    return (await res.json()) as T;
  } catch {
    return null;
  }
}

/**
 * A highly available PostgreSQL as an operator runs one, every process started here: one
 * etcd, `nodes` PostgreSQL 15 servers each under its Patroni (as the `postgres` user, data
 * under a temporary folder), and HAProxy sending connections to the leader only (Patroni's
 * REST check `GET /primary` every second; a server marked down has its sessions shut down).
 */
export class HaCluster {
  readonly dir: string;
  readonly nodes: HaNode[];
  readonly etcdPort: number;
  readonly etcdPeerPort: number;
  readonly haproxyPort: number;
  private etcd: Started | null = null;
  private haproxy: Started | null = null;
  private readonly patronis = new Map<string, Started>();
  /** synchronous_mode as the cluster has it now. */
  private synchronous: boolean;

  constructor(private readonly options: HaClusterOptions) {
    this.synchronous = options.synchronous;
    const base = options.portBase;
    this.etcdPort = base;
    this.etcdPeerPort = base + 1;
    this.haproxyPort = base + 2;
    this.dir = mkdtempSync(path.join(tmpdir(), 'ha-cluster-'));
    chmodSync(this.dir, 0o755);
    this.nodes = Array.from({ length: options.nodes ?? 3 }, (_, i) => ({
      name: `pg${i + 1}`,
      pgPort: base + 10 + i,
      restPort: base + 20 + i,
      dataDir: path.join(this.dir, `pg${i + 1}`, 'data'),
      patroni: null,
    }));
  }

  /** The URL of `database` through HAProxy: always the leader. */
  url(database: string): string {
    return `postgres://postgres@127.0.0.1:${this.haproxyPort}/${database}`;
  }

  /** The URL of `database` on one node, bypassing HAProxy. */
  nodeUrl(node: HaNode, database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${node.pgPort}/${database}`;
  }

  node(name: string): HaNode {
    const node = this.nodes.find((n) => n.name === name);
    if (!node) throw new Error(`no node ${name}`);
    return node;
  }

  async start(): Promise<void> {
    const ports = [
      this.etcdPort,
      this.etcdPeerPort,
      this.haproxyPort,
      ...this.nodes.flatMap((n) => [n.pgPort, n.restPort]),
    ];
    const taken = [];
    for (const port of ports) if (!(await portFree(port))) taken.push(port);
    if (taken.length)
      throw new Error(`ports in use (FAILOVER_PORT_BASE moves them): ${taken.join(', ')}`);
    await this.startEtcd();
    // The first node bootstraps the cluster; the others clone it once it leads.
    this.startPatroni(this.nodes[0]);
    await eventually(async () => (await this.leader()) === this.nodes[0].name, 30_000, 250).catch(
      () => {
        throw new Error(
          `${this.nodes[0].name} did not lead:\n${this.patroniOutput(this.nodes[0])}`,
        );
      },
    );
    for (const node of this.nodes.slice(1)) this.startPatroni(node);
    this.startHaproxy();
    await this.waitHealthy(120_000);
  }

  private async startEtcd(): Promise<void> {
    const dataDir = path.join(this.dir, 'etcd');
    const client = `http://127.0.0.1:${this.etcdPort}`;
    const peer = `http://127.0.0.1:${this.etcdPeerPort}`;
    this.etcd = start(
      HA_BINARIES.etcd,
      [
        '--name=etcd1',
        `--data-dir=${dataDir}`,
        `--listen-client-urls=${client}`,
        `--advertise-client-urls=${client}`,
        `--listen-peer-urls=${peer}`,
        `--initial-advertise-peer-urls=${peer}`,
        `--initial-cluster=etcd1=${peer}`,
        '--initial-cluster-state=new',
        // No fsync wait worth having on a throw-away cluster on a loaded machine.
        '--unsafe-no-fsync',
        '--log-level=warn',
      ],
      { cwd: this.dir, logFile: path.join(this.dir, 'etcd.log') },
    );
    await eventually(
      async () => {
        if (!alive(this.etcd!.proc)) throw new Error(`etcd exited: ${this.etcd!.output()}`);
        const health = await getJson<{ health: string }>(`${client}/health`);
        return health?.health === 'true';
      },
      30_000,
      100,
    );
  }

  private patroniConfig(node: HaNode): string {
    const nodeDir = path.dirname(node.dataDir);
    const config = {
      scope: 'failover',
      name: node.name,
      restapi: {
        listen: `127.0.0.1:${node.restPort}`,
        connect_address: `127.0.0.1:${node.restPort}`,
      },
      etcd3: { hosts: [`127.0.0.1:${this.etcdPort}`] },
      bootstrap: {
        dcs: {
          ...PATRONI_TIMING,
          maximum_lag_on_failover: MAXIMUM_LAG_ON_FAILOVER,
          synchronous_mode: this.options.synchronous,
          postgresql: {
            use_pg_rewind: true,
            parameters: {
              wal_level: 'replica',
              hot_standby: 'on',
              wal_log_hints: 'on',
              max_wal_senders: 10,
              max_replication_slots: 10,
              wal_keep_size: '256MB',
              max_connections: 100,
              shared_buffers: '32MB',
              // A process kill keeps the page cache: fsync only matters for a machine crash.
              fsync: 'off',
              full_page_writes: 'on',
            },
          },
        },
        initdb: [{ encoding: 'UTF8' }, { locale: 'C.UTF-8' }],
      },
      postgresql: {
        listen: `127.0.0.1:${node.pgPort}`,
        connect_address: `127.0.0.1:${node.pgPort}`,
        data_dir: node.dataDir,
        bin_dir: PG_BIN_DIR,
        pgpass: path.join(nodeDir, 'pgpass'),
        authentication: {
          superuser: { username: 'postgres' },
          replication: { username: 'postgres' },
          rewind: { username: 'postgres' },
        },
        parameters: { unix_socket_directories: nodeDir },
        pg_hba: [
          'local all all trust',
          'host all all 127.0.0.1/32 trust',
          'host replication all 127.0.0.1/32 trust',
        ],
        remove_data_directory_on_rewind_failure: true,
        remove_data_directory_on_diverged_timelines: true,
      },
      log: { level: 'INFO' },
    };
    // YAML is a superset of JSON: Patroni reads this as its configuration file.
    return JSON.stringify(config, null, 2);
  }

  /** Starts (or restarts) the Patroni of a node; it starts its PostgreSQL. */
  startPatroni(node: HaNode): void {
    const nodeDir = path.dirname(node.dataDir);
    mkdirSync(nodeDir, { recursive: true });
    const ids = postgresIds();
    if (ids) chownSync(nodeDir, ids.uid, ids.gid);
    chmodSync(nodeDir, 0o700);
    const configFile = path.join(nodeDir, 'patroni.yml');
    writeFileSync(configFile, this.patroniConfig(node));
    if (ids) chownSync(configFile, ids.uid, ids.gid);
    const started = start(HA_BINARIES.patroni, [configFile], {
      cwd: nodeDir,
      logFile: path.join(nodeDir, 'patroni.log'),
      asPostgres: true,
    });
    this.patronis.set(node.name, started);
    node.patroni = started.proc;
  }

  private startHaproxy(): void {
    const config = path.join(this.dir, 'haproxy.cfg');
    writeFileSync(
      config,
      [
        'global',
        '  maxconn 2000',
        'defaults',
        '  mode tcp',
        '  timeout connect 2s',
        // A connection to a server that refuses it (a primary shutting down) is closed at once,
        // not retried on that same server a second apart for 3 s: the client's next attempt
        // reaches the new primary as soon as the check marks it up.
        '  retries 0',
        '  timeout client 30m',
        '  timeout server 30m',
        '  timeout check 1s',
        'listen postgres',
        `  bind 127.0.0.1:${this.haproxyPort}`,
        '  option httpchk GET /primary',
        '  http-check expect status 200',
        // Checked every second; down at the first failed check, up at the first good one; a
        // server marked down has its client sessions closed, so no one writes to a demoted node.
        '  default-server inter 1s fall 1 rise 1 on-marked-down shutdown-sessions',
        ...this.nodes.map(
          (n) => `  server ${n.name} 127.0.0.1:${n.pgPort} maxconn 500 check port ${n.restPort}`,
        ),
      ].join('\n') + '\n',
    );
    this.haproxy = start(HA_BINARIES.haproxy, ['-db', '-f', config], {
      cwd: this.dir,
      logFile: path.join(this.dir, 'haproxy.log'),
    });
  }

  /** The members as Patroni's REST API of any living node lists them. */
  async members(): Promise<HaMember[]> {
    for (const node of this.nodes) {
      if (!alive(node.patroni)) continue;
      const cluster = await getJson<{ members: HaMember[] }>(
        `http://127.0.0.1:${node.restPort}/cluster`,
      );
      if (cluster?.members) return cluster.members;
    }
    return [];
  }

  /** The leader's name, when one leads and its PostgreSQL runs. */
  async leader(): Promise<string | null> {
    const leader = (await this.members()).find((m) => m.role === 'leader');
    return leader && leader.state === 'running' ? leader.name : null;
  }

  /**
   * Every node running: one leader, the others replicas streaming from it with no lag (one of
   * them the synchronous standby in synchronous mode), and HAProxy passing writes to the leader.
   */
  async waitHealthy(timeoutMs = 90_000): Promise<void> {
    try {
      await eventually(
        async () => {
          const members = await this.members();
          if (members.length !== this.nodes.length) return false;
          if (!members.every((m) => m.state === 'running')) return false;
          if (members.filter((m) => m.role === 'leader').length !== 1) return false;
          if (this.synchronous && !members.some((m) => m.role === 'sync_standby')) return false;
          if (!members.every((m) => m.role === 'leader' || m.lag === 0)) return false;
          return this.writable();
        },
        timeoutMs,
        250,
      );
    } catch {
      throw new Error(
        `cluster not healthy in ${timeoutMs} ms: ${JSON.stringify(await this.members())}\n` +
          this.nodes.map((n) => `${n.name}:\n${this.patroniOutput(n).slice(-3_000)}`).join('\n'),
      );
    }
  }

  /** Whether a write through HAProxy is taken now. */
  async writable(): Promise<boolean> {
    const client = new Client({
      connectionString: this.url('postgres'),
      connectionTimeoutMillis: 2_000,
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      const { rows } = await client.query<{ ro: boolean }>('SELECT pg_is_in_recovery() AS ro');
      return rows[0].ro === false;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /**
   * The port of the server a new connection through HAProxy reaches, when that server takes
   * writes; null when no writable server answers within a second.
   */
  async writableServer(): Promise<number | null> {
    const client = new Client({
      connectionString: this.url('postgres'),
      connectionTimeoutMillis: 1_000,
      query_timeout: 1_000,
    });
    client.on('error', () => undefined);
    const ask = async () => {
      await client.connect();
      const { rows } = await client.query<{ port: number; ro: boolean }>(
        'SELECT inet_server_port() AS port, pg_is_in_recovery() AS ro',
      );
      return rows[0].ro ? null : rows[0].port;
    };
    try {
      // A connection HAProxy holds while it finds no server must not hold the probe up.
      return await Promise.race([ask(), sleep(2_000).then(() => null)]);
    } catch {
      return null;
    } finally {
      // Not awaited: ending a connection that never opened may never settle.
      client.end().catch(() => undefined);
    }
  }

  /**
   * Stops (SIGSTOP) the leader's WAL senders, as a slow or broken link to the replicas would:
   * the leader goes on committing (in asynchronous mode) what no replica receives. Killing the
   * leader's node ends them; nothing resumes them.
   */
  async pauseReplication(): Promise<void> {
    const leader = await this.leader();
    if (!leader) throw new Error('no leader');
    const senders = await query<{ pid: number }>(
      this.nodeUrl(this.node(leader)),
      'SELECT pid FROM pg_stat_replication',
    );
    for (const { pid } of senders) process.kill(pid, 'SIGSTOP');
  }

  /** Bytes of WAL the leader wrote that no replica has received yet. */
  async replicationLagBytes(): Promise<number> {
    const leader = await this.leader();
    if (!leader) return 0;
    const [{ lsn }] = await query<{ lsn: string }>(
      this.nodeUrl(this.node(leader)),
      'SELECT pg_current_wal_lsn()::text AS lsn',
    );
    let best: number | null = null;
    for (const node of this.nodes.filter((n) => n.name !== leader && alive(n.patroni))) {
      const [row] = await query<{ lag: string | null }>(
        this.nodeUrl(node),
        'SELECT pg_wal_lsn_diff($1::pg_lsn, pg_last_wal_receive_lsn())::text AS lag',
        [lsn],
      );
      const lag = row?.lag === null || row === undefined ? null : Number(row.lag);
      if (lag !== null && (best === null || lag < best)) best = lag;
    }
    return best ?? 0;
  }

  /** Runs statements on the leader (through HAProxy), each in its own transaction. */
  async sql(database: string, statements: string[]): Promise<void> {
    const client = new Client({ connectionString: this.url(database) });
    await client.connect();
    try {
      for (const statement of statements) await client.query(statement);
    } finally {
      await client.end();
    }
  }

  patroniOutput(node: HaNode): string {
    return this.patronis.get(node.name)?.output() ?? '';
  }

  /** The postmaster's pid (first line of postmaster.pid), or null when it is not running. */
  postmasterPid(node: HaNode): number | null {
    try {
      const pid = Number(
        readFileSync(path.join(node.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0],
      );
      process.kill(pid, 0);
      return pid;
    } catch {
      return null;
    }
  }

  /** SIGKILL of the node's postmaster alone (its backends see it die and exit; Patroni lives). */
  killPostmaster(node: HaNode): void {
    const pid = this.postmasterPid(node);
    if (pid === null) throw new Error(`${node.name}: no postmaster running`);
    process.kill(pid, 'SIGKILL');
  }

  /** The process group of the node's PostgreSQL (Patroni starts it in a session of its own). */
  private postgresGroup(node: HaNode): number | null {
    const pid = this.postmasterPid(node);
    return pid === null ? null : processGroup(pid);
  }

  /**
   * SIGKILL of the whole node: Patroni and every PostgreSQL process (Patroni starts the
   * postmaster in a session of its own, so that is a second process group).
   */
  async killNode(node: HaNode): Promise<void> {
    const postgres = this.postgresGroup(node);
    const started = this.patronis.get(node.name);
    if (started) killGroup(started.proc.pid!, 'SIGKILL');
    if (postgres !== null) killGroup(postgres, 'SIGKILL');
    await started?.exited;
    node.patroni = null;
    await eventually(() => Promise.resolve(this.postmasterPid(node) === null), 10_000, 50);
  }

  /** A planned switchover through Patroni's REST API: the leader hands over to a replica. */
  async switchover(candidate?: string): Promise<{ status: number; text: string }> {
    const leader = await this.leader();
    if (!leader) throw new Error('no leader to switch over from');
    const res = await fetch(`http://127.0.0.1:${this.node(leader).restPort}/switchover`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(candidate ? { leader, candidate } : { leader }),
      signal: AbortSignal.timeout(60_000),
    });
    return { status: res.status, text: await res.text() };
  }

  /** Changes the cluster-wide (DCS) configuration, as `patronictl edit-config` does. */
  async patchConfig(change: Record<string, unknown>): Promise<void> {
    const leader = await this.leader();
    if (!leader) throw new Error('no leader');
    const res = await fetch(`http://127.0.0.1:${this.node(leader).restPort}/config`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(change),
      signal: AbortSignal.timeout(10_000),
    });
    if (res.status !== 200) throw new Error(`PATCH /config: ${res.status} ${await res.text()}`);
    if (typeof change.synchronous_mode === 'boolean') this.synchronous = change.synchronous_mode;
  }

  /** Stops everything it started and removes its folder, whatever state it is in. */
  async stop(): Promise<void> {
    await this.stopProcess(this.haproxy, 'SIGTERM', 5_000);
    // Patroni stops its PostgreSQL on SIGTERM; a fast stop, then SIGKILL of whatever is left.
    await Promise.all(
      this.nodes.map(async (node) => {
        await this.stopProcess(this.patronis.get(node.name) ?? null, 'SIGTERM', 15_000);
        node.patroni = null;
        const postgres = this.postgresGroup(node);
        if (postgres !== null) {
          killGroup(postgres, 'SIGKILL');
          await eventually(
            () => Promise.resolve(this.postmasterPid(node) === null),
            10_000,
            50,
          ).catch(() => undefined);
        }
      }),
    );
    await this.stopProcess(this.etcd, 'SIGTERM', 5_000);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async stopProcess(started: Started | null, signal: NodeJS.Signals, graceMs: number) {
    if (!started || !alive(started.proc)) return;
    killGroup(started.proc.pid!, signal);
    const ended = await Promise.race([
      started.exited.then(() => true),
      sleep(graceMs).then(() => false),
    ]);
    if (!ended) {
      killGroup(started.proc.pid!, 'SIGKILL');
      await started.exited;
    }
  }

  /** Whether HAProxy accepts connections (its port is open). */
  haproxyListening(): Promise<boolean> {
    return portOpen(this.haproxyPort);
  }
}
