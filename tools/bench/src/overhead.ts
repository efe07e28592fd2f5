import { createUser, selfVirtual } from '@bank/card-issue/testing';
import { eventually, ReceivedSpan, SPAN_KIND, startOtlpReceiver } from '@bank/shared/testing';
import { HTTP_SPANS_SCOPE, PG_SPANS_SCOPE } from '@bank/shared/tracing';
import { BenchContext, log } from './context';
import { instructionCost, instructionsPerRequest, type InstructionCost } from './callgrind';
import { Running, startCardIssue, startEach } from './infra';
import { measureFreshRounds } from './load';
import type { RunResult } from './rows';
import { callgrindAvailable, countInstructions } from './instructions';
import { Scenario } from './scenarios';
import { compareRounds } from './stats';

/** One way of running card-issue: its observability switches. */
interface Configuration {
  name: string;
  env: (sinkUrl: string) => Record<string, string>;
}

const METRICS_ON = { METRICS_ENABLED: 'true' };
const tracing = (ratio: string) => (sinkUrl: string) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl,
  OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
  OTEL_TRACES_SAMPLER_ARG: ratio,
});

/** The configurations compared, the first being the reference. */
export const OVERHEAD_CONFIGURATIONS: Configuration[] = [
  { name: 'metrics off, tracing off', env: () => ({ METRICS_ENABLED: 'false' }) },
  { name: 'metrics on', env: () => METRICS_ON },
  // Every request takes the unsampled path (the edge decision, no span, the traceparent it
  // passes on): what tracing costs before any span is recorded.
  {
    name: 'metrics on, tracing 0 %',
    env: (sink) => ({ ...METRICS_ON, ...tracing('0')(sink) }),
  },
  {
    name: 'metrics on, tracing 10 %',
    env: (sink) => ({ ...METRICS_ON, ...tracing('0.1')(sink) }),
  },
  {
    name: 'metrics on, tracing 100 %',
    env: (sink) => ({ ...METRICS_ON, ...tracing('1')(sink) }),
  },
];

/**
 * The overhead runs' rounds and durations: at least 9 rounds of 1 s warm-up and 5 s measured,
 * whatever the (shorter) defaults of the other runs. The costs compared are a few percent of a
 * request, and a single run on the shared cores moves by 10-30 %: a figure over many runs is what
 * one run that another process (or a major garbage collection) disturbed does not decide.
 */
export function overheadSettings(
  settings: BenchContext['settings'],
): Pick<BenchContext['settings'], 'rounds' | 'warmupS' | 'durationS'> {
  return {
    rounds: Math.max(9, settings.rounds),
    warmupS: Math.max(1, settings.warmupS),
    durationS: Math.max(5, settings.durationS),
  };
}

export interface OverheadRow {
  scenario: string;
  connections: number;
  configuration: string;
  result: RunResult;
  /**
   * The throughput a CPU-bound replica loses: 1 - (CPU per request with both off) / (CPU per
   * request of this configuration), each over all its rounds. Judged against the target, since it
   * does not depend on what else the shared machine runs.
   */
  cost: number;
  /** The same from the rounds' first and third quartile ratios: how much the rounds agree. */
  costSpread: [number, number];
  /** CPU time per request over the one with both off, ms. */
  extraCpuMs: number;
  /** Instructions per request under callgrind (null where valgrind is not installed). */
  instructions: InstructionCost | null;
}

export interface OverheadResult {
  rows: OverheadRow[];
  /** Exports the discarding collector answered during the runs. */
  exports: number;
  /** What the bundle's spans were found to hold before the runs (the check below). */
  verified: string;
}

/**
 * The production bundle traces what it should: one POST with tracing at 100 % to a collector
 * that keeps the spans must give the HTTP server and client spans and the pg spans, and the user
 * service's server span a child of the POST's client span (traceparent went downstream). Throws
 * otherwise: a bundle that loads the instrumented modules before the SDK would bench nothing.
 */
async function verifyBundleTraces(ctx: BenchContext, cardDb: string): Promise<string> {
  const collector = await startOtlpReceiver();
  let service: Running | null = null;
  try {
    service = await startCardIssue(ctx, cardDb, {
      DB_MIGRATIONS_RUN: 'false',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_BSP_SCHEDULE_DELAY: '50',
    });
    const owner = await createUser(service.url, {}, ctx.secret);
    const res = await fetch(`${service.url}/api/v1/card-issue`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'bench-verify' },
      body: JSON.stringify(selfVirtual(owner)),
    });
    if (res.status !== 201) throw new Error(`verification POST answered ${res.status}`);
    const isPost = (s: ReceivedSpan) =>
      s.kind === SPAN_KIND.SERVER && s.name === 'POST /api/v1/card-issue';
    const downstream = (post: ReceivedSpan) =>
      collector.spans.find(
        (s) =>
          s.kind === SPAN_KIND.SERVER &&
          s.traceId === post.traceId &&
          s.name.startsWith('GET /user-api') &&
          collector.spans.some((c) => c.spanId === s.parentSpanId && c.kind === SPAN_KIND.CLIENT),
      );
    await eventually(() => {
      const post = collector.spans.find(isPost);
      return Promise.resolve(!!post && !!downstream(post));
    }, 15_000).catch(() => {
      throw new Error(
        `the bundle's POST gave no trace through the user service; spans: ${collector.spans
          .map((s) => `${s.scope} ${s.name}`)
          .join(', ')}`,
      );
    });
    const post = collector.spans.find(isPost) as ReceivedSpan;
    const scopes = new Set(
      collector.spans.filter((s) => s.traceId === post.traceId).map((s) => s.scope),
    );
    const required = [HTTP_SPANS_SCOPE, PG_SPANS_SCOPE];
    const missing = required.filter((scope) => !scopes.has(scope));
    if (missing.length) throw new Error(`the bundle's POST trace lacks ${missing.join(', ')}`);
    const spans = collector.spans.filter((s) => s.traceId === post.traceId).length;
    return `${spans} spans in the POST's trace from ${required.join(', ')}; the user service's server span a child of the POST's client span`;
  } finally {
    await service?.stop();
    await collector.close();
  }
}

/**
 * The observability overhead: card-issue POST and GET by id with metrics and tracing on and off,
 * in the same run, each configuration its own process from the production bundle on the same
 * database, measured in alternating rounds (load.ts). Traces go to a local OTLP/HTTP collector that reads
 * and discards them (a real one runs elsewhere; this one shares the cores).
 */
export async function overheadBench(
  ctx: BenchContext,
  cardDb: string,
  scenarios: Scenario[],
): Promise<OverheadResult> {
  log('observability overhead: checking the bundle traces');
  const verified = await verifyBundleTraces(ctx, cardDb);
  log(`bundle traces: ${verified}`);
  const sink = await startOtlpReceiver({ keep: false });
  const connections = 50;
  try {
    // runs[scenario][configuration][round]
    const runs = await measureFreshRounds(
      () => startConfigurations(ctx, cardDb, sink.url),
      scenarios,
      connections,
      overheadSettings(ctx.settings),
      'observability overhead',
    );
    const rows: OverheadRow[] = [];
    scenarios.forEach((scenario, s) => {
      const compared = compareRounds(runs[s]);
      compared.forEach(({ result, ratio, ratioQuartiles }, i) => {
        // A replica that spends `ratio` times the reference's CPU per request answers 1/ratio of
        // its requests: it loses 1 - 1/ratio of its throughput.
        const costOf = (r: number) => 1 - 1 / r;
        const row: OverheadRow = {
          scenario: scenario.name,
          connections,
          configuration: OVERHEAD_CONFIGURATIONS[i].name,
          result,
          cost: costOf(ratio),
          costSpread: [costOf(ratioQuartiles[0]), costOf(ratioQuartiles[1])],
          extraCpuMs: result.cpuMsPerRequest - compared[0].result.cpuMsPerRequest,
          instructions: null,
        };
        rows.push(row);
        log(
          `${row.scenario} c=${connections} ${row.configuration}: ${result.rps.toFixed(0)} req/s, ` +
            `p99 ${result.p99.toFixed(1)} ms, ${result.cpuMsPerRequest.toFixed(3)} ms CPU per request, ` +
            `cost ${(100 * row.cost).toFixed(1)} % (rounds' quartiles ${row.costSpread.map((c) => (100 * c).toFixed(1)).join(' to ')} %)`,
        );
      });
    });
    if (callgrindAvailable()) {
      for (const scenario of scenarios)
        await addInstructionCounts(ctx, cardDb, sink.url, scenario, rows);
    } else log('observability overhead: valgrind not installed, no instruction counts');
    return { rows, exports: sink.exports(), verified };
  } finally {
    await sink.close();
  }
}

/** The instructions per request of each configuration of `scenario`, into its rows. */
async function addInstructionCounts(
  ctx: BenchContext,
  cardDb: string,
  sinkUrl: string,
  scenario: Scenario,
  rows: OverheadRow[],
): Promise<void> {
  const configurations = OVERHEAD_CONFIGURATIONS.map((c) => ({
    name: c.name,
    env: processEnv(c, sinkUrl),
  }));
  const counts = await countInstructions(ctx, cardDb, configurations, scenario);
  const reference = instructionsPerRequest(counts[0]);
  counts.forEach((count, i) => {
    const row = rows.find(
      (r) => r.scenario === scenario.name && r.configuration === configurations[i].name,
    );
    if (row) row.instructions = instructionCost(count, reference);
  });
}

/** The environment of a card-issue process of `configuration` (the schema is migrated once, before). */
function processEnv(configuration: Configuration, sinkUrl: string): Record<string, string> {
  return { DB_MIGRATIONS_RUN: 'false', ...configuration.env(sinkUrl) };
}

/** One card-issue process per configuration, from the production bundle, on `cardDb`. */
function startConfigurations(
  ctx: BenchContext,
  cardDb: string,
  sinkUrl: string,
): Promise<Running[]> {
  return startEach(
    OVERHEAD_CONFIGURATIONS.map(
      (configuration) => () => startCardIssue(ctx, cardDb, processEnv(configuration, sinkUrl)),
    ),
  );
}
