import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '@bank/shared/testing';
import { generateWebhookSecret } from '@bank/shared/webhooks';
import { BenchContext, log } from './context';
import { Running, startCardIssue, withClient } from './infra';
import { load } from './load';
import type { RunResult } from './rows';
import { overheadSettings } from './overhead';
import { cpuMs } from './proc';
import { Scenario } from './scenarios';
import { median } from './stats';

/** The name BENCH_ONLY matches to run the webhook cost runs. */
export const WEBHOOK_COST = 'webhook cost';

export const WEBHOOK_CONFIGURATIONS = ['no subscription', 'one subscription (delivered)'] as const;

export interface WebhookCostRow {
  scenario: string;
  connections: number;
  configuration: (typeof WEBHOOK_CONFIGURATIONS)[number];
  /** The load run alone (req/s, latencies). */
  result: RunResult;
  /**
   * CPU time of the service process per POST from the start of the run until every event it
   * wrote was delivered (the dispatcher's work included), median of the rounds.
   */
  cpuMsPerRequest: number;
  /** How long the deliveries went on after the run ended, median of the rounds. */
  drainMs: number;
  /** Webhooks the receiver answered during this configuration's measured runs. */
  delivered: number;
}

export interface WebhookCostResult {
  rows: WebhookCostRow[];
  /** CPU ms per POST added by one active subscription. */
  extraCpuMs: number;
  /** 1 - CPU per POST without / with the subscription: the throughput a CPU-bound replica loses. */
  cost: number;
}

/** A self-signed certificate for 127.0.0.1 (openssl), trusted by the service through NODE_EXTRA_CA_CERTS. */
function selfSignedCertificate(dir: string): { key: string; cert: string; certPath: string } {
  const keyPath = join(dir, 'key.pem');
  const certPath = join(dir, 'cert.pem');
  const result = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyPath,
      '-out',
      certPath,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`openssl failed: ${result.stderr}`);
  return { key: readFileSync(keyPath, 'utf8'), cert: readFileSync(certPath, 'utf8'), certPath };
}

/**
 * Webhooks' cost per POST: the added cost of a card-issue POST with one webhook subscription
 * active (every POST writes one delivery row in its statement and the dispatcher signs and POSTs
 * it over https to a local receiver) against none (the statement's probe of the empty
 * subscription table), in the same run and the same process: the subscription is inserted and
 * deleted between alternating rounds. A round's CPU is counted until its deliveries are all
 * done, so work the dispatcher defers past the run is not left out.
 */
export async function webhookCostBench(
  ctx: BenchContext,
  cardDb: string,
  scenario: Scenario,
): Promise<WebhookCostResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-webhooks-'));
  const { key, cert, certPath } = selfSignedCertificate(dir);
  let received = 0;
  const receiver = createServer({ key, cert }, (req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
  let service: Running | null = null;
  try {
    service = await startCardIssue(ctx, cardDb, {
      DB_MIGRATIONS_RUN: 'false',
      WEBHOOK_ALLOWED_TARGET_CIDRS: '127.0.0.0/8',
      NODE_EXTRA_CA_CERTS: certPath,
    });
    const running = service;
    const subscriptionId = randomUUID();
    const setUp = (active: boolean) =>
      withClient(cardDb, async (c) => {
        await c.query(`DELETE FROM webhook_subscriptions WHERE id = $1`, [subscriptionId]);
        if (active)
          await c.query(
            `INSERT INTO webhook_subscriptions (id, url, event_types, secret, created_at, updated_at)
             VALUES ($1, $2, ARRAY['card_issue.created','card_issue.failed','card_issue.status_changed'], $3, now(), now())`,
            [subscriptionId, url, generateWebhookSecret()],
          );
      });
    const drained = () =>
      eventually(
        () =>
          withClient(cardDb, async (c) => {
            const { rows } = await c.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM webhook_deliveries WHERE state = 'PENDING'`,
            );
            return rows[0].n === 0;
          }),
        600_000,
        100,
      );
    const connections = 50;
    const { rounds, warmupS, durationS } = overheadSettings(ctx.settings);
    const samples = WEBHOOK_CONFIGURATIONS.map(() => ({
      runs: [] as RunResult[],
      cpu: [] as number[],
      drain: [] as number[],
      delivered: 0,
    }));
    for (let round = 0; round < rounds; round++) {
      for (const [i, configuration] of WEBHOOK_CONFIGURATIONS.entries()) {
        await setUp(i === 1);
        await load(running, scenario, connections, warmupS);
        await drained();
        const receivedBefore = received;
        const cpuBefore = cpuMs(running.proc.pid);
        const result = await load(running, scenario, connections, durationS);
        const ended = Date.now();
        await drained();
        const drainMs = Date.now() - ended;
        const cpu = (cpuMs(running.proc.pid) - cpuBefore) / Math.max(1, result.requests);
        samples[i].runs.push(result);
        samples[i].cpu.push(cpu);
        samples[i].drain.push(drainMs);
        samples[i].delivered += received - receivedBefore;
        log(
          `${WEBHOOK_COST} round ${round + 1} ${configuration}: ${result.rps.toFixed(0)} req/s, ` +
            `${cpu.toFixed(2)} ms CPU per POST (deliveries done ${drainMs} ms after the run)`,
        );
      }
    }
    await setUp(false);
    const rows: WebhookCostRow[] = WEBHOOK_CONFIGURATIONS.map((configuration, i) => ({
      scenario: scenario.name,
      connections,
      configuration,
      result: {
        ...samples[i].runs[0],
        rps: median(samples[i].runs.map((r) => r.rps)),
        p50: median(samples[i].runs.map((r) => r.p50)),
        p99: median(samples[i].runs.map((r) => r.p99)),
        errors: samples[i].runs.reduce((sum, r) => sum + r.errors, 0),
        requests: samples[i].runs.reduce((sum, r) => sum + r.requests, 0),
      },
      cpuMsPerRequest: median(samples[i].cpu),
      drainMs: median(samples[i].drain),
      delivered: samples[i].delivered,
    }));
    const [none, one] = rows;
    return {
      rows,
      extraCpuMs: one.cpuMsPerRequest - none.cpuMsPerRequest,
      cost: 1 - none.cpuMsPerRequest / one.cpuMsPerRequest,
    };
  } finally {
    await service?.stop();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  }
}
