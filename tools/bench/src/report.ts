import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BeforeAfterResult } from './before-after';
import { BenchSettings, ROOT, log } from './context';
import type { GrowthRow } from './growth';
import {
  HOSTILE_BODIES,
  hostileBodiesPassed,
  PROBE_TARGET_MS,
  type HostileBodiesRow,
} from './hostile-bodies';
import type { Machine } from './infra';
import { f0, f1, f2, f3, pct, signedPct, table } from './format';
import type { ProfileRun } from './profile';
import type { OutboxStormResult } from './outbox-storm';
import { FIRST_WARMUP_S } from './load';
import { OVERHEAD_CONFIGURATIONS, overheadSettings, type OverheadResult } from './overhead';
import type { SchedulerResult } from './scheduler';
import { WEBHOOK_COST, type WebhookCostResult } from './webhook-cost';
import { DRIVE_CONCURRENCY, INSTRUCTION_PLANS, INSTRUCTION_PROCESSES } from './instructions';
import { sides, type Row } from './rows';
import { loadTargets, OVERHEAD_TARGET, overheadVerdict } from './targets';

// ---------------------------------------------------------------- load runs

export function resultsTable(rows: Row[]): string {
  return table(
    [
      'scenario',
      'conns',
      'service req/s',
      'baseline req/s',
      'ratio',
      'baseline with user GET req/s',
      'ratio with user GET',
      'p50/p99 ms (service / baseline / with user GET)',
      'errors',
      'RSS MB',
      'targets',
    ],
    rows.map((r) => [
      r.scenario,
      String(r.connections),
      f0(r.service.rps),
      f0(r.baseline.rps),
      f2(r.service.rps / r.baseline.rps),
      r.baselineUserGets ? f0(r.baselineUserGets.rps) : '-',
      r.baselineUserGets ? f2(r.service.rps / r.baselineUserGets.rps) : '-',
      sides(r, (x) => `${f1(x.p50)}/${f1(x.p99)}`),
      sides(r, (x) => String(x.errors)),
      sides(r, (x) => f0(x.rssMb)),
      loadTargets(r),
    ]),
  );
}

/**
 * The cost of the bearer JWT per request: the service with AUTH_MODE=jwt against itself with
 * AUTH_MODE=none (the row's baseline; on a saturated process each request takes about 1/rps of
 * its CPU, so the difference of the inverses is the time the token adds), and the verification
 * alone, in-process (steadier on a shared machine).
 */
export function authCostLines(rows: Row[], verify: { rs256: number; es256: number }): string {
  return [
    ...rows.map(
      (row) =>
        `bearer JWT (RS256) at ${row.connections} connections: ` +
        `${f0(row.service.rps)} vs ${f0(row.baseline.rps)} req/s (ratio ${f2(row.service.rps / row.baseline.rps)}), ` +
        `${f0((1 / row.service.rps - 1 / row.baseline.rps) * 1e6)} us per request; ` +
        `p99 ${f1(row.service.p99)} vs ${f1(row.baseline.p99)} ms`,
    ),
    `token verification in-process (TokenVerifier, configured key): RS256 ${f0(verify.rs256)} us, ES256 ${f0(verify.es256)} us per token`,
  ].join('\n');
}

// ---------------------------------------------------------------- observability overhead

/** The name BENCH_ONLY matches to run the observability overhead runs. */
export const OBSERVABILITY_OVERHEAD = 'observability overhead';

export function overheadTable(result: OverheadResult): string {
  return table(
    [
      'scenario',
      'conns',
      'configuration',
      'req/s',
      'p50/p99 ms',
      'service CPU ms per request',
      'cost: throughput lost at equal CPU',
      'instructions per request (callgrind): cost',
      'target',
    ],
    result.rows.map((r, i) => {
      const reference = i % OVERHEAD_CONFIGURATIONS.length === 0;
      return [
        r.scenario,
        String(r.connections),
        r.configuration,
        f0(r.result.rps),
        `${f1(r.result.p50)}/${f1(r.result.p99)}`,
        reference
          ? f3(r.result.cpuMsPerRequest)
          : `${f3(r.result.cpuMsPerRequest)} (${r.extraCpuMs >= 0 ? '+' : ''}${f3(r.extraCpuMs)})`,
        reference
          ? 'reference'
          : `${pct(r.cost)} (rounds: ${pct(r.costSpread[0])} to ${pct(r.costSpread[1])})`,
        !r.instructions
          ? 'not counted (no valgrind)'
          : reference
            ? `${f0(r.instructions.perRequest / 1e3)} k`
            : `${f0(r.instructions.perRequest / 1e3)} k: ${pct(r.instructions.cost)} (processes: ${pct(r.instructions.costRange[0])} to ${pct(r.instructions.costRange[1])})`,
        r.configuration === OVERHEAD_TARGET.configuration
          ? overheadVerdict(r.cost, r.instructions?.cost ?? null)
          : '',
      ];
    }),
  );
}

/** The "Observability overhead" section of docs/benchmarks.md. */
export function overheadSection(result: OverheadResult, settings: BenchSettings): string {
  const runs = overheadSettings(settings);
  const { GET: get, POST: post } = INSTRUCTION_PLANS;
  const n = (count: number) => count.toLocaleString('en-US');
  return [
    '## Observability overhead',
    '',
    `card-issue from its production bundle in ${OVERHEAD_CONFIGURATIONS.length} processes on the same database, one per configuration, started afresh for every round ` +
      "(how V8 compiles a process's hot code differs from one process to the next and stays with the process: under callgrind, the instructions per GET of one configuration differed by up to 12 % between processes and by 1-2 % between windows of one) " +
      `and run ${FIRST_WARMUP_S} s of each scenario before the round's first measured run: ` +
      '`METRICS_ENABLED=false` without tracing (the reference), `METRICS_ENABLED=true`, and with tracing on top ' +
      '(`OTEL_EXPORTER_OTLP_ENDPOINT` set, `OTEL_TRACES_SAMPLER=parentbased_traceidratio`, `OTEL_TRACES_SAMPLER_ARG` 0, 0.1 and 1), ' +
      `exporting OTLP/HTTP protobuf (the default) to a local collector that reads and discards every export (${result.exports} exports answered). ` +
      `Each scenario at 50 connections, as fast as each process answers, in ${runs.rounds} alternating rounds of ${runs.warmupS} s warm-up and ${runs.durationS} s measured per configuration ` +
      '(req/s and latencies the median of the rounds). ' +
      'The CPU per request of a configuration is its total over all its rounds (total CPU / total requests: a major garbage collection falls in one 5 s run or the next and moves a single run by 10-30 %); ' +
      "beside the cost, the first and third quartiles of the rounds' own costs, each round against the reference's in the same round " +
      '(the configurations of a round run back to back, so what disturbed the machine then disturbed them alike): how much the rounds agree. ' +
      'The cost per request is the CPU time (user + system, /proc/<pid>/stat) the service process spent per request answered; ' +
      'a replica is CPU-bound, so the throughput it loses is 1 - (CPU per request with both off) / (CPU per request of the configuration). ' +
      'That is what the target is judged by: unlike req/s it hardly depends on what else the shared machine runs at the time. ' +
      `Target: metrics plus 10 %-sampled tracing cost at most ${f0(100 * OVERHEAD_TARGET.maxCost)} % of the CPU per request (the throughput lost).`,
    '',
    'Instructions per request (tools/bench/src/instructions.ts): the same configurations, each in ' +
      `${INSTRUCTION_PROCESSES} more processes started under valgrind's callgrind, warmed up uncounted (${n(get.warmup)} GETs or ${n(post.warmup)} POSTs), ` +
      `then ${get.windows} counted windows of ${n(get.perWindow)} GETs or ${post.windows} of ${n(post.perWindow)} POSTs, ${DRIVE_CONCURRENCY} at a time. ` +
      "What is counted is the main thread: the request's own code " +
      "(the median window) and the garbage collections it triggered there (all windows); V8's concurrent marking and compilation threads are left out. " +
      'An instruction count depends far less on what else the machine runs: windows of one process agree within 1-2 %, processes of one configuration by up to 12 % ' +
      '(each compiles its hot code its own way, and a loaded machine leaves its code longer in the slower tiers), where the CPU time of a run moves by 10-30 %. It is not time: it leaves out how fast the instructions run (cache misses), ' +
      "so it judges the cost of the code path, and the CPU time judges the throughput. Cost: 1 - (the reference's mean) / (the configuration's mean); " +
      'beside it, the lowest and highest single process against the same reference mean.',
    '',
    `Checked first: ${result.verified}.`,
    '',
    overheadTable(result),
  ].join('\n');
}

// ---------------------------------------------------------------- before and after

/** The before/after comparison (before-after.ts): printed, not written to docs/benchmarks.md. */
export function beforeAfterTable(result: BeforeAfterResult): string {
  const { rounds, warmupS, durationS } = result.settings;
  return [
    `CPU per request: before ${result.bundle}, after the workspace's dist/; ${rounds} rounds of ` +
      `${warmupS} s warm-up and ${durationS} s measured per bundle, new processes every round. ` +
      "Change: the CPU per request over all rounds; round spread: the rounds' own changes " +
      '(each against the other bundle in the same round), first to third quartile.',
    '',
    table(
      [
        'scenario',
        'conns',
        'CPU ms per request before',
        'after',
        'change',
        'round spread',
        'req/s before / after',
        'p99 ms before / after',
        'errors before / after',
      ],
      result.rows.map((r) => [
        r.scenario,
        String(r.connections),
        f3(r.before.cpuMsPerRequest),
        f3(r.after.cpuMsPerRequest),
        signedPct(r.change),
        `${signedPct(r.changeSpread[0])} to ${signedPct(r.changeSpread[1])}`,
        `${f0(r.before.rps)} / ${f0(r.after.rps)}`,
        `${f1(r.before.p99)} / ${f1(r.after.p99)}`,
        `${r.before.errors} / ${r.after.errors}`,
      ]),
    ),
  ].join('\n');
}

// ---------------------------------------------------------------- webhook cost

export function webhookCostTable(result: WebhookCostResult): string {
  return table(
    [
      'scenario',
      'conns',
      'configuration',
      'req/s',
      'p50/p99 ms',
      'service CPU ms per POST (until delivered)',
      'deliveries done after the run',
      'webhooks delivered',
    ],
    result.rows.map((r, i) => [
      r.scenario,
      String(r.connections),
      r.configuration,
      f0(r.result.rps),
      `${f1(r.result.p50)}/${f1(r.result.p99)}`,
      i === 0
        ? f2(r.cpuMsPerRequest)
        : `${f2(r.cpuMsPerRequest)} (+${f2(result.extraCpuMs)}, ${f1(100 * result.cost)} % of a POST's throughput)`,
      i === 0 ? '' : `${f0(r.drainMs)} ms`,
      String(r.delivered),
    ]),
  );
}

/** The "Webhooks: cost per POST" section of docs/benchmarks.md. */
export function webhookCostSection(result: WebhookCostResult, settings: BenchSettings): string {
  const runs = overheadSettings(settings);
  return [
    WEBHOOK_COST_HEADING,
    '',
    'One card-issue process from its production bundle (NODE_ENV=production, webhook delivery on, scheduler and outbox off), ' +
      'with no webhook subscription and then with one subscription to every event type, whose receiver is a local node:https server ' +
      '(self-signed certificate for 127.0.0.1, trusted through NODE_EXTRA_CA_CERTS; WEBHOOK_ALLOWED_TARGET_CIDRS=127.0.0.0/8) answering 204. ' +
      'The subscription is inserted and deleted between alternating rounds, so both configurations run in the same process on the same database. ' +
      `50 connections, ${runs.rounds} rounds of ${runs.warmupS} s warm-up and ${runs.durationS} s measured per configuration, each figure the median of its rounds. ` +
      'The CPU per POST counts the service process from the start of a measured run until every event it wrote was delivered ' +
      "(the event row written in the POST's statement, then the claim, HMAC signature, POST over a kept-alive TLS connection, and the recorded outcome), " +
      'so the delivery work done after the run is not left out.',
    '',
    webhookCostTable(result),
  ].join('\n');
}

// ---------------------------------------------------------------- hostile bodies

const HOSTILE_BODIES_HEADING = '## Health probes while bodies are refused';

export function hostileBodiesTable(rows: HostileBodiesRow[]): string {
  return table(
    [
      'service',
      'bodies sent (bursts of 4 at once)',
      'probes',
      'probe p50/p99/max ms',
      'POSTs answered',
      'slowest POST ms',
    ],
    rows.map((r) => [
      r.service,
      r.body === 'none (probes alone)' ? r.body : `${r.body} (${r.bodyKb} KB)`,
      String(r.probes.count),
      `${f1(r.probes.p50)}/${f1(r.probes.p99)}/${f1(r.probes.max)}`,
      Object.entries(r.statuses)
        .map(([status, n]) => `${n} x ${status}`)
        .join(', ') || '-',
      r.slowestPostMs ? f0(r.slowestPostMs) : '-',
    ]),
  );
}

/** The verdict line: the slowest probe under load against PROBE_TARGET_MS. */
export function hostileBodiesVerdict(rows: HostileBodiesRow[]): string {
  const loaded = rows.filter((r) => r.body !== 'none (probes alone)');
  const slowest = Math.max(...loaded.map((r) => r.probes.max));
  return `Target (every probe under ${PROBE_TARGET_MS} ms while the bodies are refused, each with 400): ${hostileBodiesPassed(rows) ? 'met' : 'MISSED'}; slowest probe ${f1(slowest)} ms.`;
}

/** The "Health probes while bodies are refused" section of docs/benchmarks.md. */
export function hostileBodiesSection(rows: HostileBodiesRow[], seconds: number): string {
  return [
    HOSTILE_BODIES_HEADING,
    '',
    'Each service from its production bundle (NODE_ENV=production) on its own database. For ' +
      `${seconds} s per kind, bursts of four JSON bodies sent at once, within the 1 MiB limit and built to make validation work: ` +
      '90,000 unknown keys, or 100,000 levels of nesting; the next burst 100 ms after the last answer of the one before. ' +
      'Meanwhile a probe GETs `/api/health/live` every 20 ms, each on a new connection, as a kubelet probes. ' +
      'The first row of each service is the same probe with nothing else running. The services refuse such bodies from their bytes, ' +
      'before they are parsed (`BODY_TOO_COMPLEX`, docs/robustness.md). Each service runs with the `NODE_OPTIONS` and `MALLOC_ARENA_MAX` of its k8s/<service>/config.env; ' +
      'the load generator shares the 2 cores with it and PostgreSQL.',
    '',
    hostileBodiesTable(rows),
    '',
    hostileBodiesVerdict(rows),
  ].join('\n');
}

/** Replaces only the hostile bodies section of docs/benchmarks.md (a BENCH_ONLY run of it). */
export function writeHostileBodiesSection(section: string): void {
  writeSection(HOSTILE_BODIES_HEADING, section, HOSTILE_BODIES);
}

// ---------------------------------------------------------------- scheduler, growth, profiles

export function schedulerTable(results: SchedulerResult[]): string {
  return table(
    [
      'replicas',
      'requests',
      'seconds to final status',
      'moves/s',
      'scheduler moves',
      'duplicate moves',
    ],
    results.map((r) => [
      String(r.replicas),
      String(r.requests),
      f1(r.seconds),
      f0((2 * r.requests) / r.seconds),
      String(r.schedulerMoves),
      String(r.duplicates),
    ]),
  );
}

/** The name BENCH_ONLY matches to run the outbox storm. */
export const OUTBOX_STORM = 'outbox storm';

export function outboxStormTable(r: OutboxStormResult): string {
  return table(
    [
      'clients x requests, s',
      'PATCHes (errors)',
      'probe creates',
      'delivery lag p50 / p99 / max (ms)',
      'busy requests settled after (ms)',
      'status messages (superseded)',
      'left undelivered',
    ],
    [
      [
        `${r.clients} x ${r.busyRequests}, ${r.seconds}`,
        `${r.patches} (${r.patchErrors})`,
        String(r.probes),
        `${r.lagP50Ms} / ${r.lagP99Ms} / ${r.lagMaxMs}`,
        String(r.settleMs),
        `${r.statusMessages} (${r.superseded})`,
        String(r.left),
      ],
    ],
  );
}

export function growthTable(rows: GrowthRow[]): string {
  return table(
    [
      'stored requests',
      'GET by client req/s (10 conns)',
      'GET by client p50 / p99 ms',
      'one scheduler batch (500 due) ms',
    ],
    rows.map((g) => [
      g.stored.toLocaleString('en'),
      f0(g.byClient.rps),
      `${f1(g.byClient.p50)} / ${f1(g.byClient.p99)}`,
      f1(g.batchMs),
    ]),
  );
}

function profileSection(run: ProfileRun): string {
  const p = run.profile;
  if (!p) return 'No profile was written.';
  return (
    `\`node --cpu-prof\` of the card-issue process during 8 s of ${run.scenario} at 50 connections; self time by stage:\n\n${p.table}\n\n` +
    `Dominant stage: **${p.dominant}**. (The profile covers the whole process life, start-up and the ` +
    `${f1(run.shutdownSeconds)} s graceful shutdown after SIGTERM included; idle time is left out of the shares.)\n\n` +
    `Heaviest functions:\n\n${p.topFunctions}`
  );
}

function machineSection(m: Machine): string {
  return [
    `- CPU: ${m.cores} cores (\`os.availableParallelism()\`), ${m.cpuModel}`,
    `- Memory (\`free -h\`):\n\n\`\`\`\n${m.memory}\n\`\`\``,
    `- Node.js ${m.node}; ${m.postgres}`,
    `- Load generator: autocannon in the same machine (it shares the ${m.cores} cores with the service and PostgreSQL)`,
  ].join('\n');
}

// ---------------------------------------------------------------- docs/benchmarks.md

interface BenchResults {
  settings: BenchSettings;
  machine: Machine;
  minutes: number;
  rows: Row[];
  profiles: ProfileRun[];
  scheduler: SchedulerResult[];
  storm: OutboxStormResult;
  growth: GrowthRow[];
  overhead: OverheadResult;
  webhookCost: WebhookCostResult;
}

export function benchmarksDoc(r: BenchResults): string {
  const { rounds, warmupS, durationS, schedulerRows } = r.settings;
  return [
    '# Benchmarks',
    '',
    `Generated by \`npm run bench\` (tools/bench) on ${new Date().toISOString().slice(0, 16)}Z in ${f1(r.minutes)} minutes. ` +
      'Services run from their production bundles (`node dist/apps/<service>/main.js`, NODE_ENV=production, LOG_LEVEL=warn, ' +
      'scheduler and outbox delivery off unless stated) against PostgreSQL on 127.0.0.1, each in a throw-away `bench_*` database.',
    '',
    '## Machine',
    '',
    machineSection(r.machine),
    '',
    '## Service against its physical limit',
    '',
    `Per scenario and connection count: ${rounds} alternating rounds of service then baseline(s), each a ${warmupS} s warm-up then ` +
      `${durationS} s measured (autocannon); req/s and latencies are the mean of the rounds, errors their sum (non-2xx, socket errors, timeouts), ` +
      'RSS the peak of the process. The baseline (tools/bench/src/baseline-server.ts) is node:http + pg doing the same SQL ' +
      'per request (user SELECT and the one-statement INSERT for a card issue; the one SELECT of a request with its history; manager SELECT and client INSERT) ' +
      'with no framework, validation, logging or mapping. For the card issue POSTs a second baseline does the same work as the service ' +
      'around the database as well: it GETs each referenced user from its own user route over a keep-alive node:http client ' +
      '(the route runs the user SELECT) before the INSERT, so "ratio with user GET" compares equal work.',
    '',
    resultsTable(r.rows),
    '',
    overheadSection(r.overhead, r.settings),
    '',
    webhookCostSection(r.webhookCost, r.settings),
    ...r.profiles.flatMap((p) => [
      '',
      `## Where the card-issue ${p.scenario.startsWith('POST') ? 'POST' : 'GET by id'} spends its CPU`,
      '',
      profileSection(p),
    ]),
    '',
    '## Scheduler',
    '',
    `${schedulerRows.toLocaleString('en')} CREATED requests stored in one transaction (the service's INSERT, run per row inside PostgreSQL); ` +
      'replicas with SCHEDULER_TICK_MS=100, both delays 0, batch size 500 (default), outbox delivery off, each run in a fresh database; ' +
      'time from the commit until every request is READY / PLASTIC_READY (two moves each).',
    '',
    schedulerTable(r.scheduler),
    '',
    '## Outbox under a status storm',
    '',
    'One card-issue process with outbox delivery on (defaults), its operation service being the reference one over HTTP. ' +
      'Clients PATCH a few requests in a loop (every PATCH a status change, so every one writes an outbox message); meanwhile a ' +
      'probe creates another request every 250 ms and polls (20 ms) until its operation exists: the delivery lag of requests ' +
      "nobody storms. Then the time until every stormed request's operation holds its latest status.",
    '',
    outboxStormTable(r.storm),
    '',
    '## Growth',
    '',
    "Requests stored with the service's INSERT (10 % due for the scheduler: 5 % CREATED, 5 % PROCESSING), then ANALYZE; GET by client for a user with 10 requests " +
      '(10 connections, 3 s) and one scheduler batch of 500 due requests (median of 5, rolled back).',
    '',
    growthTable(r.growth),
  ].join('\n');
}

const OVERHEAD_HEADING = '## Observability overhead';
const SOAK_HEADING = '## Memory soak';

/** Replaces only the memory soak section of docs/benchmarks.md (BENCH_ONLY=soak, soak.ts). */
export function writeSoakSection(section: string): void {
  writeSection(SOAK_HEADING, section, 'memory soak');
}
const WEBHOOK_COST_HEADING = '## Webhooks: cost per POST';

/** Replaces only the webhook cost section of docs/benchmarks.md (a BENCH_ONLY run of it). */
export function writeWebhookCostSection(section: string): void {
  writeSection(WEBHOOK_COST_HEADING, section, WEBHOOK_COST);
}

/**
 * Replaces only the "Observability overhead" section of docs/benchmarks.md (a BENCH_ONLY run of
 * it), or adds it at the end of the generated part; everything else is kept.
 */
export function writeOverheadSection(section: string): void {
  writeSection(OVERHEAD_HEADING, section, 'observability overhead');
}

/** The mark after the generated part of docs/benchmarks.md: what follows it is written by hand. */
const MARK = '<!-- end of generated part: text below is kept by npm run bench -->';

/**
 * `doc` (docs/benchmarks.md) with the section under `heading` in its generated part replaced by
 * `section`, up to the next `## ` heading; added at the end of the generated part if there is no
 * such section. Everything else is kept.
 */
export function replaceSection(doc: string, heading: string, section: string): string {
  const current = doc.includes(MARK) ? doc : `${doc}${MARK}\n`;
  const [generated, kept] = current.split(MARK);
  const start = generated.indexOf(heading);
  const next = start < 0 ? -1 : generated.indexOf('\n## ', start + heading.length);
  const updated =
    start < 0
      ? `${generated.trimEnd()}\n\n${section}\n\n`
      : `${generated.slice(0, start)}${section}\n${next < 0 ? '\n' : generated.slice(next)}`;
  return `${updated}${MARK}${kept}`;
}

function writeSection(heading: string, section: string, label: string): void {
  const path = join(ROOT, 'docs', 'benchmarks.md');
  writeFileSync(
    path,
    replaceSection(existsSync(path) ? readFileSync(path, 'utf8') : '', heading, section),
  );
  log(`wrote the ${label} section of ${path}`);
}

/** Replaces the generated part of docs/benchmarks.md; the text after the mark is kept. */
export function writeBenchmarksDoc(content: string): void {
  const path = join(ROOT, 'docs', 'benchmarks.md');
  const current = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const kept = current.includes(MARK) ? current.split(MARK)[1] : '\n';
  writeFileSync(path, `${content}\n\n${MARK}${kept}`);
  log(`wrote ${path}`);
}
