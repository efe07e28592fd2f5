/**
 * The memory soak (BENCH_ONLY=soak): one card-issue process from the production bundle, with the
 * runtime memory settings shipped in k8s/card-issue/config.env (NODE_OPTIONS, MALLOC_ARENA_MAX),
 * the scheduler moving statuses every second and outbox delivery on, under a mixed load at a
 * fixed overall rate for BENCH_SOAK_MINUTES; its RSS and V8 heap sampled every
 * BENCH_SOAK_SAMPLE_S seconds and judged: did the RSS level off below 70 % of the 512Mi limit?
 *
 * Settings (environment): BENCH_SOAK_MINUTES (60), BENCH_SOAK_RATE (requests per second over all
 * connections, 200), BENCH_SOAK_CONNECTIONS (50: enough that the rate, not the latency, sets the pace), BENCH_SOAK_SAMPLE_S (15), BENCH_SOAK_WINDOW_S
 * (seconds per row of the table, 300), BENCH_SOAK_NODE_OPTIONS and BENCH_SOAK_MALLOC_ARENA_MAX
 * (instead of config.env's; empty: unset), BENCH_SOAK_ENV (a JSON object of more variables for
 * the service, e.g. an OPERATION_API_URL that never answers, for a lasting outbox backlog), BENCH_SOAK_CSV (where every sample is written;
 * default tmp/bench-soak-<run id>.csv).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import autocannon from 'autocannon';
import { createUser } from '@bank/card-issue/testing';
import { BenchContext, ROOT, log } from './context';
import { createPayloads } from './fixtures';
import { createDatabase, migrateCardIssue, startCardIssue } from './infra';
import { rssMb } from './proc';
import {
  judgePlateau,
  memoryOfMetrics,
  parseMetrics,
  runtimeMemoryEnv,
  smapsRollupMiB,
  windowLabel,
  windows,
  type MemorySample,
  type PlateauJudgement,
} from './soak-judge';

/** The name BENCH_ONLY matches to run the soak. */
export const SOAK = 'soak';

/** The config.env whose runtime memory settings the soak runs with. */
const CONFIG_ENV = 'k8s/card-issue/config.env';

export interface SoakSettings {
  minutes: number;
  rate: number;
  connections: number;
  sampleS: number;
  windowS: number;
  csv: string;
}

export function soakSettings(ctx: BenchContext, env = process.env): SoakSettings {
  return {
    minutes: Number(env.BENCH_SOAK_MINUTES ?? 60),
    rate: Number(env.BENCH_SOAK_RATE ?? 200),
    connections: Number(env.BENCH_SOAK_CONNECTIONS ?? 50),
    sampleS: Number(env.BENCH_SOAK_SAMPLE_S ?? 15),
    windowS: Number(env.BENCH_SOAK_WINDOW_S ?? 300),
    csv: env.BENCH_SOAK_CSV ?? join(ROOT, 'tmp', `bench-soak-${ctx.runId}.csv`),
  };
}

/** One sample with what /proc/<pid>/smaps_rollup adds. */
export interface SoakSample extends MemorySample {
  /** Anonymous resident memory (heap, malloc arenas, thread stacks): RSS less the mapped files. */
  anonymousMiB: number;
}

export interface SoakResult {
  settings: SoakSettings;
  /** NODE_OPTIONS and MALLOC_ARENA_MAX the service ran with. */
  runtime: Record<string, string>;
  samples: SoakSample[];
  judgement: PlateauJudgement;
  requests: number;
  errors: number;
  /** Answers by status class, e.g. { '2xx': 1000, '4xx': 3 }. */
  statuses: Record<string, number>;
  /** Seconds the load actually ran. */
  seconds: number;
  /** The service's own count of 5xx answers per route (http_requests_total), if any. */
  serverErrors: Record<string, number>;
}

/** Statuses a PATCH sets in turn: moves the scheduler then moves on again. */
const PATCHED = ['PROCESSING', 'CREATED', 'FAILED'];

/** The ids of the latest requests created, for the GETs and PATCHes to pick from. */
class Recent {
  private readonly ids: string[] = [];
  private turn = 0;
  constructor(private readonly size: number) {}
  add(id: string): void {
    this.ids[this.turn++ % this.size] = id;
  }
  pick(): string {
    return this.ids[Math.floor(Math.random() * this.ids.length)];
  }
}

export async function soakBench(ctx: BenchContext): Promise<SoakResult> {
  const settings = soakSettings(ctx);
  const runtime = runtimeMemoryEnv(readFileSync(join(ROOT, CONFIG_ENV), 'utf8'), process.env);
  const url = await createDatabase(ctx, 'soak');
  migrateCardIssue(ctx, url);
  const service = await startCardIssue(ctx, url, {
    ...runtime,
    DB_MIGRATIONS_RUN: 'false',
    SCHEDULER_ENABLED: 'true',
    SCHEDULER_TICK_MS: '1000',
    SCHEDULER_CREATED_DELAY_MS: '5000',
    SCHEDULER_PROCESSING_DELAY_MS: '5000',
    OUTBOX_ENABLED: 'true',
    METRICS_ENABLED: 'true',
    ...(JSON.parse(process.env.BENCH_SOAK_ENV ?? '{}') as Record<string, string>),
  });
  const pid = service.proc.pid;
  log(
    `soak: card-issue pid ${pid} with ${JSON.stringify(runtime)}, ${settings.rate} req/s for ${settings.minutes} min`,
  );
  const payloads = createPayloads();
  const owners: string[] = [];
  for (let i = 0; i < 50; i++) owners.push(await createUser(service.url, {}, ctx.secret));
  const recent = new Recent(2_000);
  for (const owner of owners.slice(0, 10)) {
    const res = await fetch(`${service.url}/api/v1/card-issue`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payloads.virtualCardForSelf(owner)),
    });
    recent.add(((await res.json()) as { requestId: string }).requestId);
  }
  let turn = 0;
  const owner = () => owners[turn++ % owners.length];
  const remember = (status: number, body: string) => {
    if (status === 201) recent.add((JSON.parse(body) as { requestId: string }).requestId);
  };
  const json = { 'content-type': 'application/json' };
  type Request = autocannon.Request;
  const getById: Request = {
    method: 'GET',
    path: '/',
    setupRequest: (req: Request) => ({
      ...req,
      path: `/api/v1/card-issue/${recent.pick()}`,
    }),
  };
  const getByClient: Request = {
    method: 'GET',
    path: '/',
    setupRequest: (req: Request) => ({
      ...req,
      path: `/api/v1/card-issue/client/${owner()}?limit=10`,
    }),
  };
  // Per cycle of 8: 2 POSTs (one VIRTUAL, one PLASTIC by courier), 3 GETs by id, 2 GETs by
  // client, 1 PATCH of the status.
  const requests: Request[] = [
    {
      method: 'POST',
      path: '/api/v1/card-issue',
      headers: json,
      setupRequest: (req: Request) => ({
        ...req,
        body: JSON.stringify(payloads.virtualCardForSelf(owner())),
      }),
      onResponse: remember,
    },
    getById,
    getByClient,
    {
      method: 'PATCH',
      path: '/',
      headers: json,
      setupRequest: (req: Request) => ({
        ...req,
        path: `/api/v1/card-issue/${recent.pick()}/status`,
        body: JSON.stringify({ status: PATCHED[turn++ % PATCHED.length] }),
      }),
    },
    {
      method: 'POST',
      path: '/api/v1/card-issue',
      headers: json,
      setupRequest: (req: Request) => ({
        ...req,
        body: JSON.stringify(payloads.plasticCardByCourier(owner())),
      }),
      onResponse: remember,
    },
    getById,
    getById,
    getByClient,
  ];

  const samples: SoakSample[] = [];
  const started = Date.now();
  const sample = async () => {
    const atS = Math.round((Date.now() - started) / 1000);
    try {
      const res = await fetch(`${service.url}/metrics`, { signal: AbortSignal.timeout(10_000) });
      const text = await res.text();
      const rss = rssMb(pid);
      const rollup = smapsRollupMiB(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
      const s: SoakSample = {
        ...memoryOfMetrics(text, rss, atS),
        anonymousMiB: rollup.anonymousMiB,
      };
      samples.push(s);
      log(
        `soak ${(atS / 60).toFixed(1)} min: RSS ${s.rssMiB.toFixed(0)} MiB (anon ${s.anonymousMiB.toFixed(0)}), ` +
          `heap ${s.heapUsedMiB.toFixed(0)}/${s.heapTotalMiB.toFixed(0)} MiB (new ${s.newSpaceMiB.toFixed(0)}, old ${s.oldSpaceMiB.toFixed(0)}), ` +
          `external ${s.externalMiB.toFixed(0)} MiB`,
      );
      writeCsv(settings.csv, samples);
    } catch (error) {
      log(`soak: no sample at ${atS} s: ${String(error)}`);
    }
  };
  await sample();
  const sampler = setInterval(() => void sample(), settings.sampleS * 1000);
  try {
    const result = await autocannon({
      url: service.url,
      connections: settings.connections,
      overallRate: settings.rate,
      duration: settings.minutes * 60,
      timeout: 10,
      requests,
    });
    await sample();
    const serverErrors = await serverErrorsOf(service.url);
    const statuses: Record<string, number> = {};
    for (const klass of ['1xx', '2xx', '3xx', '4xx', '5xx'] as const) {
      const n = result[klass];
      if (n) statuses[klass] = n;
    }
    const judgement = judgePlateau(samples);
    log(
      `soak: ${result.requests.total} requests, ${JSON.stringify(statuses)}, ${result.errors} errors, ${result.timeouts} timeouts; ` +
        `5xx by route ${JSON.stringify(serverErrors)}`,
    );
    return {
      settings,
      runtime,
      samples,
      judgement,
      requests: result.requests.total,
      errors: result.errors + result.timeouts,
      statuses,
      seconds: (Date.now() - started) / 1000,
      serverErrors,
    };
  } finally {
    clearInterval(sampler);
    await service.stop();
  }
}

/** The 5xx answers of /metrics' http_requests_total, by method and route. */
async function serverErrorsOf(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const errors: Record<string, number> = {};
  for (const [series, n] of parseMetrics(text)) {
    const match = /^http_requests_total\{method="(\w+)",route="([^"]*)",status_class="5xx"\}$/.exec(
      series,
    );
    if (match && n) errors[`${match[1]} ${match[2]}`] = n;
  }
  return errors;
}

const CSV_COLUMNS: (keyof SoakSample)[] = [
  'atS',
  'rssMiB',
  'anonymousMiB',
  'heapTotalMiB',
  'heapUsedMiB',
  'newSpaceMiB',
  'oldSpaceMiB',
  'externalMiB',
];

function writeCsv(path: string, samples: SoakSample[]): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(
    path,
    [
      CSV_COLUMNS.join(','),
      ...samples.map((s) => CSV_COLUMNS.map((c) => s[c].toFixed(c === 'atS' ? 0 : 1)).join(',')),
    ].join('\n') + '\n',
  );
}

/** Rows of the soak table: one per window, its peak RSS and its last sample's figures. */
export function soakTable(result: SoakResult): string {
  const f0 = (n: number) => n.toFixed(0);
  const rows = windows(result.samples, result.settings.windowS).map((w) => {
    const s = w.last as SoakSample;
    return `| ${windowLabel(w, result.seconds)} | ${f0(w.rssMaxMiB)} | ${f0(s.rssMiB)} | ${f0(s.anonymousMiB)} | ${f0(s.heapTotalMiB)} | ${f0(s.heapUsedMiB)} | ${f0(s.newSpaceMiB)} | ${f0(s.oldSpaceMiB)} | ${f0(s.externalMiB)} | ${f0(s.rssMiB - s.heapTotalMiB)} |`;
  });
  return [
    '| minute | RSS peak MiB | RSS MiB | anonymous MiB | heap committed MiB | heap used MiB | new space MiB | old space MiB | external MiB | RSS - heap committed MiB |',
    '| -----: | -----------: | ------: | ------------: | -----------------: | ------------: | ------------: | ------------: | -----------: | -----------------------: |',
    ...rows,
  ].join('\n');
}

/** The judgement in one line. */
export function soakVerdict(result: SoakResult): string {
  const j = result.judgement;
  const figures =
    `peak RSS ${j.firstHalfMaxMiB.toFixed(1)} MiB in the first half, ${j.lastHalfMaxMiB.toFixed(1)} MiB in the last ` +
    `(${j.growth >= 0 ? '+' : ''}${(100 * j.growth).toFixed(1)} %); highest ${j.maxMiB.toFixed(1)} MiB against a ceiling of ${j.ceilingMiB.toFixed(1)} MiB`;
  return j.passed
    ? `Plateau below 70 % of 512 MiB: yes. ${figures}.`
    : `Plateau below 70 % of 512 MiB: NO (${j.reasons.join('; ')}). ${figures}.`;
}

/** The "Memory soak" section of docs/benchmarks.md. */
export function soakSection(result: SoakResult): string {
  const { settings: s, runtime } = result;
  const settingsText = Object.entries(runtime)
    .map(([k, v]) => `\`${k}=${v}\``)
    .join(', ');
  const statuses = Object.entries(result.statuses)
    .map(([k, n]) => `${n.toLocaleString('en-US')} ${k}`)
    .join(', ');
  return [
    '## Memory soak',
    '',
    `One card-issue process from its production bundle with the runtime memory settings of ${CONFIG_ENV} (${settingsText || 'none'}), ` +
      'the scheduler on (ticks of 1 s, both delays 5 s) and outbox delivery on (to its own reference operation service), ' +
      `under a mixed load at a fixed ${s.rate} req/s over ${s.connections} connections (autocannon's overall rate) for ${(result.seconds / 60).toFixed(0)} minutes: ` +
      'per 8 requests 2 card issue POSTs (VIRTUAL and PLASTIC by courier, each GETting its user from the user service over HTTP), ' +
      '3 GETs by id and 1 PATCH of the status of recent requests, 2 GETs by client (limit 10). ' +
      `${result.requests.toLocaleString('en-US')} requests answered (${statuses}), ${result.errors} errors or timeouts` +
      `${
        Object.keys(result.serverErrors).length
          ? ` (5xx by route, the service's count: ${Object.entries(result.serverErrors)
              .map(([route, n]) => `${route} ${n}`)
              .join(', ')})`
          : ''
      }. ` +
      `Sampled every ${s.sampleS} s: VmRSS (/proc/<pid>/status), the anonymous memory of /proc/<pid>/smaps_rollup, and prom-client's ` +
      'heap figures from /metrics (`nodejs_heap_size_total_bytes` committed, `nodejs_heap_size_used_bytes`, `nodejs_heap_space_size_total_bytes` of the new and old spaces, `nodejs_external_memory_bytes`). ' +
      `One row per ${s.windowS / 60} minutes: the peak RSS of the stretch, the rest at its last sample. ` +
      "Judged: the peak RSS of the last half at most 5 % above the first half's, and every sample below 70 % of the 512Mi limit (358.4 MiB).",
    '',
    soakTable(result),
    '',
    soakVerdict(result),
  ].join('\n');
}
