/**
 * Health probes while clients send bodies built to make validation work (BENCH_ONLY='hostile
 * bodies'): each service from its production bundle; for BENCH_HOSTILE_S seconds (10) per kind,
 * bursts of four bodies sent at once, within the 1 MiB limit, of 90,000 unknown keys or of
 * 100,000 levels of nesting, the next burst 100 ms after the last answer of the one before; a
 * probe GETs the liveness path every 20 ms on a new connection, as a kubelet does; beside it the
 * same probe with nothing else running. Judged: the slowest probe under load below 100 ms, the
 * bodies all refused with 400. The robustness test (tools/robustness/src/body-bounds.e2e-spec.ts)
 * checks the answers and that the probes are not held for seconds; the time target is judged
 * here.
 */
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { BenchContext, log, ROOT } from './context';
import { createDatabase, Running, startCardIssue, startRegistration } from './infra';
import { runtimeMemoryEnv } from './soak-judge';
import { percentile } from './stats';

/** The name BENCH_ONLY matches to run these probes. */
export const HOSTILE_BODIES = 'hostile bodies';

/** The slowest probe allowed while the bodies are refused. */
export const PROBE_TARGET_MS = 100;
/** Bodies sent at once in a burst. */
const AT_ONCE = 4;
/** The pause between the last answer of a burst and the next burst. */
const BURST_PAUSE_MS = 100;
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function timedPost(url: string, body: string): Promise<{ status: number; ms: number }> {
  const began = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    signal: AbortSignal.timeout(60_000),
  });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - began };
}

/** One liveness probe on a connection of its own (no keep-alive), as a kubelet sends it: ms. */
function probe(url: string): Promise<number> {
  const began = performance.now();
  return new Promise((resolve, reject) => {
    get(url, { agent: false, timeout: 60_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(performance.now() - began));
    }).on('error', reject);
  });
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
      probes.push(await probe(`${service.url}/api/health/live`));
      await sleep(PROBE_EVERY_MS);
    }
  })();
  const sending = (async () => {
    while (body !== null && performance.now() < until) {
      const answers = await Promise.all(
        Array.from({ length: AT_ONCE }, () => timedPost(`${service.url}${path}`, body)),
      );
      for (const answer of answers) {
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        slowestPostMs = Math.max(slowestPostMs, answer.ms);
      }
      await sleep(BURST_PAUSE_MS);
    }
  })();
  await Promise.all([probing, sending]);
  return {
    bodyKb: body === null ? 0 : Math.round(Buffer.byteLength(body) / 1024),
    statuses,
    slowestPostMs,
    probes: probeFigures(probes),
  };
}

/** The runtime memory settings (NODE_OPTIONS, MALLOC_ARENA_MAX) a service ships with. */
function shipped(service: string): Record<string, string> {
  return runtimeMemoryEnv(
    readFileSync(join(ROOT, 'k8s', service, 'config.env'), 'utf8'),
    process.env,
  );
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
      start: async () =>
        startCardIssue(ctx, await createDatabase(ctx, 'hostile_card'), shipped('card-issue')),
    },
    {
      name: 'client-registration',
      path: '/api/clients',
      start: async () =>
        startRegistration(
          ctx,
          await createDatabase(ctx, 'hostile_reg'),
          shipped('client-registration'),
        ),
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
