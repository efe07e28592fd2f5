/**
 * Health probes while clients send bodies built to make validation work (BENCH_ONLY='hostile
 * bodies'): each service from its production bundle, four clients sending, back to back for
 * BENCH_HOSTILE_S seconds (10), bodies within the 1 MiB limit of 90,000 unknown keys or of
 * 100,000 levels of nesting, while a probe GETs the liveness path every 20 ms; beside it the same
 * probe with nothing else running. Judged: the slowest probe under load below 100 ms, the bodies
 * all refused with 400. The robustness test (tools/robustness/src/body-bounds.e2e-spec.ts) checks
 * the answers and that the probes are not held for seconds; the time target is judged here.
 */
import { BenchContext, log } from './context';
import { createDatabase, Running, startCardIssue, startRegistration } from './infra';
import { percentile } from './stats';

/** The name BENCH_ONLY matches to run these probes. */
export const HOSTILE_BODIES = 'hostile bodies';

/** The slowest probe allowed while the bodies are refused. */
export const PROBE_TARGET_MS = 100;
const SENDERS = 4;
const PROBE_EVERY_MS = 20;

export const HOSTILE_BODY_KINDS = {
  '90,000 unknown keys': () =>
    `{${Array.from({ length: 90_000 }, (_, i) => `"k${i}":0`).join(',')}}`,
  '100,000 levels of nesting': () => `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
} as const;
export type HostileBodyKind = keyof typeof HOSTILE_BODY_KINDS | 'none (probes alone)';

export interface ProbeFigures {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

export interface HostileBodiesRow {
  service: string;
  body: HostileBodyKind;
  bodyKb: number;
  /** POSTs answered, by status. */
  statuses: Record<number, number>;
  /** The slowest POST's answer, ms. */
  slowestPostMs: number;
  probes: ProbeFigures;
}

/** p50, p99 and the maximum of probe times (ms). */
export function probeFigures(times: number[]): ProbeFigures {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1] : 0,
  };
}

/** Passed: every probe under load below the target and every body refused with 400. */
export function hostileBodiesPassed(rows: HostileBodiesRow[]): boolean {
  return rows
    .filter((row) => row.body !== 'none (probes alone)')
    .every(
      (row) =>
        row.probes.max < PROBE_TARGET_MS &&
        Object.keys(row.statuses).every((status) => status === '400'),
    );
}

async function timed(url: string, init?: RequestInit): Promise<{ status: number; ms: number }> {
  const began = performance.now();
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(60_000) });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - began };
}

async function measure(
  service: Running,
  path: string,
  body: string | null,
  seconds: number,
): Promise<Omit<HostileBodiesRow, 'service' | 'body'>> {
  const probes: number[] = [];
  const statuses: Record<number, number> = {};
  let slowestPostMs = 0;
  const until = performance.now() + seconds * 1000;
  const probing = (async () => {
    while (performance.now() < until) {
      probes.push((await timed(`${service.url}/api/health/live`)).ms);
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
    }
  })();
  const sending = Array.from({ length: body === null ? 0 : SENDERS }, async () => {
    while (performance.now() < until) {
      const answer = await timed(`${service.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: body as string,
      });
      statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
      slowestPostMs = Math.max(slowestPostMs, answer.ms);
    }
  });
  await Promise.all([probing, ...sending]);
  return {
    bodyKb: body === null ? 0 : Math.round(Buffer.byteLength(body) / 1024),
    statuses,
    slowestPostMs,
    probes: probeFigures(probes),
  };
}

/** Seconds of sending per body kind (BENCH_HOSTILE_S). */
export function hostileSeconds(env = process.env): number {
  return Number(env.BENCH_HOSTILE_S ?? 10);
}

export async function hostileBodiesBench(ctx: BenchContext): Promise<HostileBodiesRow[]> {
  const seconds = hostileSeconds();
  const services = [
    {
      name: 'card-issue',
      path: '/api/v1/card-issue',
      start: async () => startCardIssue(ctx, await createDatabase(ctx, 'hostile_card')),
    },
    {
      name: 'client-registration',
      path: '/api/clients',
      start: async () => startRegistration(ctx, await createDatabase(ctx, 'hostile_reg')),
    },
  ];
  const rows: HostileBodiesRow[] = [];
  for (const { name, path, start } of services) {
    const service = await start();
    try {
      // Warm-up: the paths compiled before anything is measured.
      await measure(service, path, '{}', 2);
      rows.push({
        service: name,
        body: 'none (probes alone)',
        ...(await measure(service, path, null, seconds)),
      });
      for (const [kind, build] of Object.entries(HOSTILE_BODY_KINDS)) {
        const row = {
          service: name,
          body: kind as HostileBodyKind,
          ...(await measure(service, path, build(), seconds)),
        };
        log(
          `hostile bodies: ${name}, ${kind}: slowest probe ${row.probes.max.toFixed(1)} ms of ${row.probes.count}`,
        );
        rows.push(row);
      }
    } finally {
      await service.stop();
    }
  }
  return rows;
}
