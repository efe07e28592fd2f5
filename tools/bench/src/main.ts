/**
 * npm run bench: the services against a real PostgreSQL, each scenario next to its physical
 * limit (tools/bench/src/baseline-server.ts), a CPU profile of the card-issue POST, the
 * scheduler's throughput with one and two replicas, and growth with 10^4..10^6 requests.
 * Prints tables and writes docs/benchmarks.md. Throw-away databases bench_* are dropped after.
 *
 * Settings (environment): BENCH_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres),
 * BENCH_DURATION_S (measured seconds per run, default 4), BENCH_WARMUP_S (1), BENCH_ROUNDS (2),
 * BENCH_SKIP_BUILD=true to reuse dist/, BENCH_GROWTH_MAX (1000000), BENCH_SCHEDULER_ROWS (100000),
 * BENCH_CONNECTIONS (10,50,100). BENCH_ONLY=<regex> runs only the load scenarios whose name matches
 * and prints their table: no profile, scheduler or growth, and docs/benchmarks.md is left as is.
 */
import { ChildProcess, execSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { analyzeProfile, ProfileSummary } from './profile';

const ROOT = join(__dirname, '..', '..', '..');
const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 4);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 1);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '10,50,100').split(',').map(Number);
const GROWTH_MAX = Number(process.env.BENCH_GROWTH_MAX ?? 1_000_000);
const SCHEDULER_ROWS = Number(process.env.BENCH_SCHEDULER_ROWS ?? 100_000);
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : null;
const SECRET = 'bench-secret';
const RUN_ID = randomBytes(3).toString('hex');
const databases: string[] = [];
const processes: ChildProcess[] = [];

const log = (...parts: unknown[]) =>
  console.log(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...parts);

// ---------------------------------------------------------------- infrastructure

function dbUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function admin<T>(work: (c: Client) => Promise<T>, url = ADMIN_URL): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function createDatabase(label: string): Promise<string> {
  const name = `bench_${label}_${RUN_ID}`;
  await admin((c) => c.query(`CREATE DATABASE "${name}"`));
  databases.push(name);
  return dbUrl(name);
}

async function dropDatabases(): Promise<void> {
  for (const name of databases) {
    await admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).catch(
      (e: unknown) => log('drop failed', name, e),
    );
  }
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

interface Running {
  name: string;
  url: string;
  proc: ChildProcess;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

async function startProcess(
  name: string,
  args: string[],
  env: Record<string, string>,
): Promise<Running> {
  const port = await freePort();
  const proc = spawn(process.execPath, args, {
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
  processes.push(proc);
  let output = '';
  proc.stdout?.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-5000)));
  proc.stderr?.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-5000)));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${name} exited ${proc.exitCode}: ${output}`);
    try {
      if ((await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(1_000) })).status === 200)
        break;
    } catch {
      // starting
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

const SERVICE_ENV = { LOG_LEVEL: 'warn', NODE_ENV: 'production', X_SECRET: SECRET };

function startCardIssue(
  databaseUrl: string,
  extra: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<Running> {
  return startProcess('card-issue', [...nodeArgs, 'dist/apps/card-issue/main.js'], {
    ...SERVICE_ENV,
    DATABASE_URL: databaseUrl,
    SCHEDULER_ENABLED: 'false',
    OUTBOX_ENABLED: 'false',
    ...extra,
  });
}

function startRegistration(databaseUrl: string): Promise<Running> {
  return startProcess('client-registration', ['dist/apps/client-registration/main.js'], {
    ...SERVICE_ENV,
    DATABASE_URL: databaseUrl,
  });
}

function startBaseline(databaseUrl: string): Promise<Running> {
  return startProcess(
    'baseline',
    ['-r', '@swc-node/register', 'tools/bench/src/baseline-server.ts'],
    {
      SWC_NODE_PROJECT: 'tools/bench/tsconfig.json',
      DATABASE_URL: databaseUrl,
      DB_POOL_SIZE: '10',
    },
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function rssMb(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

// ---------------------------------------------------------------- fixtures

function tomorrowInMoscow(): string {
  const d = new Date(Date.now() + 3 * 3_600_000 + 24 * 3_600_000);
  return `${String(d.getUTCDate()).padStart(2, '0')}-${String(d.getUTCMonth() + 1).padStart(2, '0')}-${d.getUTCFullYear()}`;
}

let passportCounter = 0;
function passport(): { series: string; number: string } {
  passportCounter += 1;
  return {
    series: String(2000 + Math.floor(passportCounter / 900_000)),
    number: String(100_000 + (passportCounter % 900_000)),
  };
}

const address = {
  country: 'Russia',
  region: 'Moscow',
  city: 'Moscow',
  street: 'Tverskaya',
  building: '1',
  apartment: '15',
};

function user(): object {
  return {
    firstName: 'Maria',
    lastName: 'Petrova',
    gender: 'FEMALE',
    clientType: 'FL',
    bankruptIndividual: false,
    bankruptEntrepreneur: false,
    contactInfo: { phone: '79161234567', email: 'maria@example.com' },
    embossingName: 'MARIA PETROVA',
    passportData: {
      birthDate: '15-03-1990',
      birthPlace: 'Moscow',
      issueDate: '20-03-2010',
      ...passport(),
    },
    actualAddress: address,
    registrationAddress: address,
    account: 'RUR',
    managerPin: 'M_0001',
  };
}

function registration(): object {
  return {
    lastName: 'Петров',
    firstName: 'Иван',
    middleName: 'Сергеевич',
    gender: 'MALE',
    clientType: 'UP',
    bankruptIndividual: false,
    bankruptEntrepreneur: false,
    embossingName: 'IVAN PETROV',
    contactInfo: { phone: '79161234567', email: 'ivan.petrov@example.ru' },
    passportData: {
      birthDate: '15-03-1990',
      birthPlace: 'г. Москва',
      issueDate: '20-03-2010',
      ...passport(),
    },
    actualAddress: {
      country: 'Россия',
      region: 'Московская область',
      city: 'Химки',
      street: 'ул. Ленина',
      building: '10к2',
      apartment: '45',
    },
    registrationAddress: {
      country: 'Россия',
      region: 'Москва',
      city: 'Москва',
      street: 'ул. Тверская',
      building: '1',
      apartment: '2',
    },
    account: 'RUR',
    managerPin: 'M_0001',
  };
}

async function post(
  url: string,
  body: object,
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status !== 201) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

// ---------------------------------------------------------------- load runs

interface RunResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  rssMb: number;
}

interface Scenario {
  name: string;
  service: 'card' | 'reg';
  method: 'GET' | 'POST';
  path: () => string;
  body?: () => object;
}

async function load(
  base: string,
  scenario: Scenario,
  connections: number,
  seconds: number,
  pid?: number,
): Promise<RunResult> {
  let maxRss = rssMb(pid);
  const sampler = setInterval(() => (maxRss = Math.max(maxRss, rssMb(pid))), 250);
  try {
    const result = await autocannon({
      url: base,
      connections,
      duration: seconds,
      timeout: 10,
      requests: [
        {
          method: scenario.method,
          path: scenario.path(),
          headers: { 'content-type': 'application/json' },
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
    };
  } finally {
    clearInterval(sampler);
  }
}

function mean(results: RunResult[]): RunResult {
  const avg = (f: (r: RunResult) => number) =>
    results.reduce((s, r) => s + f(r), 0) / results.length;
  return {
    rps: avg((r) => r.rps),
    p50: avg((r) => r.p50),
    p99: avg((r) => r.p99),
    errors: results.reduce((s, r) => s + r.errors, 0),
    rssMb: Math.max(...results.map((r) => r.rssMb)),
  };
}

interface Row {
  scenario: string;
  connections: number;
  service: RunResult;
  baseline: RunResult;
}

// ---------------------------------------------------------------- scheduler and growth

const MOVE_BATCH_SQL = `WITH due AS (
   SELECT request_id FROM card_issue_requests
   WHERE (status = 'CREATED' AND updated_at <= $2) OR (status = 'PROCESSING' AND updated_at <= $3)
   ORDER BY updated_at LIMIT $4 FOR UPDATE SKIP LOCKED
 ), moved AS (
   UPDATE card_issue_requests r
   SET status = CASE WHEN r.status = 'CREATED' THEN 'PROCESSING' WHEN r.form_factor = 'VIRTUAL' THEN 'READY' ELSE 'PLASTIC_READY' END,
       status_sequence = r.status_sequence + 1, updated_at = $1
   FROM due WHERE r.request_id = due.request_id
   RETURNING r.request_id, r.status, r.status_sequence
 ), history AS (
   INSERT INTO card_issue_status_history (request_id, status, source, at) SELECT request_id, status, 'scheduler', $1 FROM moved
 )
 INSERT INTO outbox_messages (request_id, type, payload, next_attempt_at, created_at)
 SELECT request_id, 'operation.status', jsonb_build_object('requestId', request_id, 'status', status, 'sequence', status_sequence), now(), now()
 FROM moved RETURNING request_id`;

/** Inserts requests numbered from..to (inclusive); every 20th CREATED and due, every 20th+1 PROCESSING. */
function insertRequestsSql(from: number, to: number, allCreated: boolean): string {
  return `WITH ins AS (
    INSERT INTO card_issue_requests (request_id, status, card_owner, holder_user_id, form_factor, card_holder,
                                     status_sequence, created_at, updated_at)
    SELECT 'RCARDB' || lpad((i / 1000000 + 1)::text, 2, '0') || '012026' || lpad((i % 1000000)::text, 6, '0'),
           ${allCreated ? `'CREATED'` : `CASE WHEN i % 20 = 0 THEN 'CREATED' WHEN i % 20 = 1 THEN 'PROCESSING' WHEN i % 2 = 0 THEN 'READY' ELSE 'PLASTIC_READY' END`},
           'X' || lpad((i % 99991)::text, 5, '0'),
           CASE WHEN i % 3 = 0 THEN 'Y' || lpad((i % 99989)::text, 5, '0') ELSE NULL END,
           CASE WHEN i % 2 = 0 THEN 'VIRTUAL' ELSE 'PLASTIC' END,
           '{"nameless": false, "embossedName": "BENCH USER"}'::jsonb, 1,
           now() - interval '2 hours' - (i || ' milliseconds')::interval, now() - interval '2 hours' - (i || ' milliseconds')::interval
      FROM generate_series(${from}, ${to}) AS i
    RETURNING request_id, status, created_at)
  INSERT INTO card_issue_status_history (request_id, status, source, at) SELECT request_id, status, 'api', created_at FROM ins`;
}

function migrate(databaseUrl: string): void {
  const result = spawnSync(process.execPath, ['dist/apps/card-issue/main.js', 'migrate'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
      X_SECRET: SECRET,
    },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`migrate failed: ${result.stderr}${result.stdout}`);
}

interface SchedulerResult {
  replicas: number;
  seconds: number;
  schedulerMoves: number;
  duplicates: number;
}

async function schedulerRun(databaseUrl: string, replicas: number): Promise<SchedulerResult> {
  await admin(
    (c) => c.query('TRUNCATE card_issue_requests, card_issue_status_history, outbox_messages'),
    databaseUrl,
  );
  const running = [];
  for (let i = 0; i < replicas; i++) {
    running.push(
      await startCardIssue(databaseUrl, {
        SCHEDULER_ENABLED: 'true',
        SCHEDULER_TICK_MS: '100',
        SCHEDULER_CREATED_DELAY_MS: '0',
        SCHEDULER_PROCESSING_DELAY_MS: '0',
      }),
    );
  }
  try {
    const started = Date.now();
    await admin((c) => c.query(insertRequestsSql(1, SCHEDULER_ROWS, true)), databaseUrl);
    const inserted = Date.now();
    let done = 0;
    while (done < SCHEDULER_ROWS) {
      if (Date.now() - inserted > 300_000)
        throw new Error(`scheduler: only ${done} of ${SCHEDULER_ROWS} done after 5 minutes`);
      await sleep(200);
      done = await admin(async (c) => {
        const { rows } = await c.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM card_issue_requests WHERE status IN ('READY', 'PLASTIC_READY')`,
        );
        return rows[0].n;
      }, databaseUrl);
    }
    const seconds = (Date.now() - inserted) / 1000;
    log(
      `scheduler x${replicas}: ${SCHEDULER_ROWS} rows in ${seconds.toFixed(1)} s (insert took ${((inserted - started) / 1000).toFixed(1)} s)`,
    );
    const { moves, duplicates } = await admin(async (c) => {
      const m = await c.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM card_issue_status_history WHERE source = 'scheduler'`,
      );
      const d = await c.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM (SELECT request_id, status FROM card_issue_status_history WHERE source = 'scheduler'
           GROUP BY request_id, status HAVING count(*) > 1) x`,
      );
      return { moves: m.rows[0].n, duplicates: d.rows[0].n };
    }, databaseUrl);
    return { replicas, seconds, schedulerMoves: moves, duplicates };
  } finally {
    for (const r of running) await r.stop();
  }
}

interface GrowthRow {
  stored: number;
  byClientRps: number;
  byClientP50: number;
  byClientP99: number;
  batchMs: number;
}

async function growth(databaseUrl: string): Promise<GrowthRow[]> {
  migrate(databaseUrl);
  // The measured client: exactly 10 requests, whatever the table size.
  await admin(
    (c) =>
      c.query(`WITH ins AS (
        INSERT INTO card_issue_requests (request_id, status, card_owner, holder_user_id, form_factor, card_holder, status_sequence, created_at, updated_at)
        SELECT 'RCARDB01022026' || lpad(i::text, 6, '0'), 'READY', 'XBENCH', 'XBENCH', 'VIRTUAL', '{"nameless": false}'::jsonb, 1, now(), now()
          FROM generate_series(1, 10) AS i RETURNING request_id, created_at)
        INSERT INTO card_issue_status_history (request_id, status, source, at) SELECT request_id, 'CREATED', 'api', created_at FROM ins`),
    databaseUrl,
  );
  const rows: GrowthRow[] = [];
  let stored = 10;
  for (const target of [10_000, 100_000, 1_000_000].filter((n) => n <= GROWTH_MAX)) {
    const t0 = Date.now();
    await admin(async (c) => {
      await c.query(insertRequestsSql(stored + 1, target, false));
      await c.query('ANALYZE card_issue_requests; ANALYZE card_issue_status_history');
    }, databaseUrl);
    log(
      `growth: ${target} requests stored (+${target - stored} in ${((Date.now() - t0) / 1000).toFixed(1)} s)`,
    );
    stored = target;
    const service = await startCardIssue(databaseUrl, { DB_MIGRATIONS_RUN: 'false' });
    let byClient: RunResult;
    try {
      const scenario: Scenario = {
        name: 'by client',
        service: 'card',
        method: 'GET',
        path: () => '/api/v1/card-issue/client/XBENCH',
      };
      await load(service.url, scenario, 10, 1);
      byClient = await load(service.url, scenario, 10, 3, service.proc.pid);
    } finally {
      await service.stop();
    }
    // One scheduler batch (500 due requests), in a transaction rolled back so every run sees the same data.
    const timings: number[] = [];
    await admin(async (c) => {
      for (let i = 0; i < 5; i++) {
        await c.query('BEGIN');
        const now = new Date();
        const start = process.hrtime.bigint();
        const moved = await c.query(MOVE_BATCH_SQL, [now, now, now, 500]);
        timings.push(Number(process.hrtime.bigint() - start) / 1e6);
        await c.query('ROLLBACK');
        if (moved.rowCount !== 500) throw new Error(`batch moved ${moved.rowCount}`);
      }
    }, databaseUrl);
    timings.sort((a, b) => a - b);
    rows.push({
      stored,
      byClientRps: byClient.rps,
      byClientP50: byClient.p50,
      byClientP99: byClient.p99,
      batchMs: timings[2],
    });
  }
  return rows;
}

// ---------------------------------------------------------------- report

const f0 = (n: number) => n.toFixed(0);
const f1 = (n: number) => n.toFixed(1);
const f2 = (n: number) => n.toFixed(2);

function table(header: string[], rows: string[][]): string {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

function target(row: Row): string {
  const ratio = row.service.rps / row.baseline.rps;
  const notes: string[] = [];
  if (row.scenario.startsWith('POST /api/v1/card-issue'))
    notes.push(ratio >= 0.5 ? 'ratio ok (>= 0.5)' : 'RATIO MISSED (< 0.5)');
  if (row.scenario.startsWith('GET /api/v1/card-issue/{id}'))
    notes.push(ratio >= 0.85 ? 'ratio ok (>= 0.85)' : 'RATIO MISSED (< 0.85)');
  if (row.connections === 50)
    notes.push(row.service.p99 < 50 ? 'p99 ok (< 50 ms)' : 'P99 MISSED (>= 50 ms)');
  if (row.service.errors > 0) notes.push('ERRORS');
  return notes.join('; ');
}

function resultsTable(rows: Row[]): string {
  return table(
    [
      'scenario',
      'conns',
      'service req/s',
      'baseline req/s',
      'ratio',
      'service p50/p99 ms',
      'baseline p50/p99 ms',
      'errors svc/base',
      'RSS MB svc/base',
      'targets',
    ],
    rows.map((r) => [
      r.scenario,
      String(r.connections),
      f0(r.service.rps),
      f0(r.baseline.rps),
      f2(r.service.rps / r.baseline.rps),
      `${f1(r.service.p50)} / ${f1(r.service.p99)}`,
      `${f1(r.baseline.p50)} / ${f1(r.baseline.p99)}`,
      `${r.service.errors} / ${r.baseline.errors}`,
      `${f0(r.service.rssMb)} / ${f0(r.baseline.rssMb)}`,
      target(r),
    ]),
  );
}

function machine(pgVersion: string): string {
  let free = '';
  try {
    free = execSync('free -h', { encoding: 'utf8' }).trim();
  } catch {
    free = '(free not available)';
  }
  return [
    `- CPU: ${cpus().length} cores (\`nproc\`), ${cpus()[0]?.model ?? 'unknown model'}`,
    `- Memory (\`free -h\`):\n\n\`\`\`\n${free}\n\`\`\``,
    `- Node.js ${process.version}; ${pgVersion}`,
    `- Load generator: autocannon in the same machine (it shares the 2 cores with the service and PostgreSQL)`,
  ].join('\n');
}

function writeDoc(content: string): void {
  const path = join(ROOT, 'docs', 'benchmarks.md');
  const MARK = '<!-- end of generated part: text below is kept by npm run bench -->';
  const kept =
    existsSync(path) && readFileSync(path, 'utf8').includes(MARK)
      ? readFileSync(path, 'utf8').split(MARK)[1]
      : '\n';
  writeFileSync(path, `${content}\n\n${MARK}${kept}`);
  log(`wrote ${path}`);
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const began = Date.now();
  const pgVersion = await admin(
    async (c) =>
      (await c.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0].v,
  ).then((v) => `PostgreSQL ${v}`);
  log(`${pgVersion}, ${cpus().length} cores, node ${process.version}`);

  if (
    process.env.BENCH_SKIP_BUILD !== 'true' ||
    !existsSync(join(ROOT, 'dist/apps/card-issue/main.js'))
  ) {
    log('building both services (npx nx run-many -t build)');
    const build = spawnSync(
      'npx',
      ['nx', 'run-many', '-t', 'build', '-p', 'card-issue', 'client-registration'],
      { cwd: ROOT, stdio: 'inherit' },
    );
    if (build.status !== 0) throw new Error('build failed');
  }

  const cardDb = await createDatabase('card');
  const regDb = await createDatabase('reg');
  const card = await startCardIssue(cardDb);
  const reg = await startRegistration(regDb);
  const cardBase = await startBaseline(cardDb);
  const regBase = await startBaseline(regDb);

  // Fixtures: 50 owners for the POSTs, one client with 10 requests for GET by client.
  const owners: string[] = [];
  for (let i = 0; i < 50; i++)
    owners.push(
      (await post(`${card.url}/user-api/api/v1/users`, user(), { 'x-secret': SECRET }))
        .id as string,
    );
  const listed = (await post(`${card.url}/user-api/api/v1/users`, user(), { 'x-secret': SECRET }))
    .id as string;
  const requestIds: string[] = [];
  for (let i = 0; i < 10; i++) {
    const body = {
      request: {
        cardOwner: listed,
        formFactor: 'VIRTUAL',
        cardHolder: { userId: listed, nameless: false, embossedName: 'IVAN PETROV' },
      },
    };
    requestIds.push((await post(`${card.url}/api/v1/card-issue`, body)).requestId as string);
  }
  const clientIds: string[] = [];
  for (let i = 0; i < 10; i++)
    clientIds.push((await post(`${reg.url}/api/clients`, registration())).id as string);

  let o = 0;
  const courierDate = tomorrowInMoscow();
  const scenarios: Scenario[] = [
    {
      name: 'POST /api/v1/card-issue (VIRTUAL, self)',
      service: 'card',
      method: 'POST',
      path: () => '/api/v1/card-issue',
      body: () => {
        const owner = owners[o++ % owners.length];
        return {
          request: {
            cardOwner: owner,
            formFactor: 'VIRTUAL',
            cardHolder: { userId: owner, nameless: false, embossedName: 'IVAN PETROV' },
          },
        };
      },
    },
    {
      name: 'POST /api/v1/card-issue (PLASTIC, courier)',
      service: 'card',
      method: 'POST',
      path: () => '/api/v1/card-issue',
      body: () => {
        const owner = owners[o++ % owners.length];
        return {
          request: {
            cardOwner: owner,
            formFactor: 'PLASTIC',
            cardHolder: { userId: owner, nameless: false, embossedName: 'IVAN PETROV' },
            delivery: {
              courier: {
                address,
                recipient: {
                  user: {
                    firstName: 'Oleg',
                    lastName: 'Sidorov',
                    contactInfo: { phone: '79031112233' },
                  },
                },
                date: courierDate,
                timeSlot: { from: '10:00', to: '14:00' },
              },
            },
          },
        };
      },
    },
    {
      name: 'GET /api/v1/card-issue/{id}',
      service: 'card',
      method: 'GET',
      path: () => `/api/v1/card-issue/${requestIds[o++ % requestIds.length]}`,
    },
    {
      name: 'GET /api/v1/card-issue/client/{clientId} (10 requests)',
      service: 'card',
      method: 'GET',
      path: () => `/api/v1/card-issue/client/${listed}`,
    },
    {
      name: 'POST /api/clients',
      service: 'reg',
      method: 'POST',
      path: () => '/api/clients',
      body: registration,
    },
    {
      name: 'GET /api/clients/{id}',
      service: 'reg',
      method: 'GET',
      path: () => `/api/clients/${clientIds[o++ % clientIds.length]}`,
    },
  ];

  const rows: Row[] = [];
  for (const scenario of scenarios.filter((s) => !ONLY || ONLY.test(s.name))) {
    const [svc, base] = scenario.service === 'card' ? [card, cardBase] : [reg, regBase];
    for (const connections of CONNECTIONS) {
      const s: RunResult[] = [];
      const b: RunResult[] = [];
      // Alternating rounds, so drift on a noisy machine hits both sides alike.
      for (let round = 0; round < ROUNDS; round++) {
        await load(svc.url, scenario, connections, WARMUP_S);
        s.push(await load(svc.url, scenario, connections, DURATION_S, svc.proc.pid));
        await load(base.url, scenario, connections, WARMUP_S);
        b.push(await load(base.url, scenario, connections, DURATION_S, base.proc.pid));
      }
      const row = { scenario: scenario.name, connections, service: mean(s), baseline: mean(b) };
      rows.push(row);
      log(
        `${scenario.name} c=${connections}: service ${f0(row.service.rps)} req/s p99 ${f1(row.service.p99)} ms, ` +
          `baseline ${f0(row.baseline.rps)} req/s, ratio ${f2(row.service.rps / row.baseline.rps)}, errors ${row.service.errors}/${row.baseline.errors}`,
      );
    }
  }
  for (const r of [card, reg, cardBase, regBase]) await r.stop();
  console.log(`\n${resultsTable(rows)}\n`);
  if (ONLY) return;

  // CPU profile of the card-issue POST (VIRTUAL) at 50 connections.
  const profileOf = async (
    scenario: Scenario,
  ): Promise<{ profile: ProfileSummary | null; shutdownSeconds: number }> => {
    log(`profiling ${scenario.name} with --cpu-prof`);
    const profDir = mkdtempSync(join(tmpdir(), 'bench-prof-'));
    const profiled = await startCardIssue(cardDb, { DB_MIGRATIONS_RUN: 'false' }, [
      '--cpu-prof',
      `--cpu-prof-dir=${profDir}`,
    ]);
    await load(profiled.url, scenario, 50, 8, profiled.proc.pid);
    const stopping = Date.now();
    await profiled.stop('SIGTERM');
    const shutdownSeconds = (Date.now() - stopping) / 1000;
    log(`card-issue stopped ${f1(shutdownSeconds)} s after SIGTERM (right after the load)`);
    const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
    const profile = file ? analyzeProfile(join(profDir, file)) : null;
    if (profile) console.log(`\n${profile.table}\n\n${profile.topFunctions}\n`);
    return { profile, shutdownSeconds };
  };
  const postProfile = await profileOf(scenarios[0]);
  const getProfile = await profileOf(scenarios[2]);
  const profileSection = (
    name: string,
    p: { profile: ProfileSummary | null; shutdownSeconds: number },
  ): string =>
    p.profile
      ? `\`node --cpu-prof\` of the card-issue process during 8 s of ${name} at 50 connections; self time by stage:\n\n${p.profile.table}\n\n` +
        `Dominant stage: **${p.profile.dominant}**. (The profile covers the whole process life, start-up and the ` +
        `${f1(p.shutdownSeconds)} s graceful shutdown after SIGTERM included; idle time is left out of the shares.)\n\n` +
        `Heaviest functions:\n\n${p.profile.topFunctions}`
      : 'No profile was written.';

  log(`scheduler: ${SCHEDULER_ROWS} CREATED requests to their final status`);
  const schedDb = await createDatabase('sched');
  migrate(schedDb);
  const scheduler = [await schedulerRun(schedDb, 1), await schedulerRun(schedDb, 2)];
  const schedulerTable = table(
    [
      'replicas',
      'requests',
      'seconds to final status',
      'moves/s',
      'scheduler moves',
      'duplicate moves',
    ],
    scheduler.map((r) => [
      String(r.replicas),
      String(SCHEDULER_ROWS),
      f1(r.seconds),
      f0((2 * SCHEDULER_ROWS) / r.seconds),
      String(r.schedulerMoves),
      String(r.duplicates),
    ]),
  );
  console.log(`\n${schedulerTable}\n`);

  log('growth');
  const growthRows = await growth(await createDatabase('growth'));
  const growthTable = table(
    [
      'stored requests',
      'GET by client req/s (10 conns)',
      'GET by client p50 / p99 ms',
      'one scheduler batch (500 due) ms',
    ],
    growthRows.map((g) => [
      g.stored.toLocaleString('en'),
      f0(g.byClientRps),
      `${f1(g.byClientP50)} / ${f1(g.byClientP99)}`,
      f1(g.batchMs),
    ]),
  );
  console.log(`\n${growthTable}\n`);

  const minutes = (Date.now() - began) / 60_000;
  writeDoc(
    [
      '# Benchmarks',
      '',
      `Generated by \`npm run bench\` (tools/bench) on ${new Date().toISOString().slice(0, 16)}Z in ${f1(minutes)} minutes. ` +
        'Services run from their production bundles (`node dist/apps/<service>/main.js`, NODE_ENV=production, LOG_LEVEL=warn, ' +
        'scheduler and outbox delivery off unless stated) against PostgreSQL on 127.0.0.1, each in a throw-away `bench_*` database.',
      '',
      '## Machine',
      '',
      machine(pgVersion),
      '',
      '## Service against its physical limit',
      '',
      `Per scenario and connection count: ${ROUNDS} alternating rounds of service then baseline, each a ${WARMUP_S} s warm-up then ` +
        `${DURATION_S} s measured (autocannon); req/s and latencies are the mean of the rounds, errors their sum (non-2xx, socket errors, timeouts), ` +
        'RSS the peak of the process. The baseline (tools/bench/src/baseline-server.ts) is node:http + pg doing the same SQL ' +
        'per request (user SELECT and the one-statement INSERT for a card issue; the one SELECT of a request with its history; manager SELECT and client INSERT) ' +
        'with no framework, validation, logging, mapping or downstream HTTP hop.',
      '',
      resultsTable(rows),
      '',
      '## Where the card-issue POST spends its CPU',
      '',
      profileSection('POST /api/v1/card-issue (VIRTUAL, self)', postProfile),
      '',
      '## Where the card-issue GET by id spends its CPU',
      '',
      profileSection('GET /api/v1/card-issue/{id}', getProfile),
      '',
      '## Scheduler',
      '',
      `${SCHEDULER_ROWS.toLocaleString('en')} CREATED requests inserted in one statement; replicas with SCHEDULER_TICK_MS=100, both delays 0, ` +
        'batch size 500 (default), outbox delivery off; time from the insert until every request is READY / PLASTIC_READY (two moves each).',
      '',
      schedulerTable,
      '',
      '## Growth',
      '',
      'Requests inserted with SQL (5 % due for the scheduler), then ANALYZE; GET by client for a user with 10 requests ' +
        '(10 connections, 3 s) and one scheduler batch of 500 due requests (median of 5, rolled back).',
      '',
      growthTable,
    ].join('\n'),
  );
  log(`done in ${f1(minutes)} minutes`);
}

async function cleanup(): Promise<void> {
  for (const p of processes) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  await sleep(500);
  await dropDatabases();
}

main()
  .then(cleanup)
  .catch(async (error: unknown) => {
    console.error(error);
    await cleanup();
    process.exit(1);
  });
