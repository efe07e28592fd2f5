import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { Client } from 'pg';
import {
  createTestDatabase,
  eventually,
  figureDatabase,
  FiguresTable,
  formatMs,
  sleep,
  TestDatabase,
  TestServiceProcess,
  runsExclusively,
} from '@bank/shared/testing';
import { generateWebhookSecret } from '@bank/shared/webhooks';
import { SECRET, spawnCardIssue } from '../../test/card-issue.harness';
import { selfVirtual } from '../../test/card-issue-requests.fixture';
import { createUser } from '../../test/users.fixture';
import { startWebhookReceiver, WebhookReceiver } from '../../test/webhook-receiver';
import { WEBHOOK_EVENT_TYPES } from './webhook-events.model';

const API = '/api/v1/card-issue';
const REQUESTS = 60;
const figures = new FiguresTable('Webhook delivery (two replicas as processes)');

// Heavy and timed: never beside another such file when Jest runs two files at a time.
runsExclusively();

/** A card-issue replica as its own process, moving requests on a short schedule. */
function spawnInstance(databaseUrl: string): Promise<TestServiceProcess> {
  return spawnCardIssue(
    {
      DATABASE_URL: databaseUrl,
      X_SECRET: SECRET,
      LOG_LEVEL: 'silent',
      SCHEDULER_ENABLED: 'true',
      SCHEDULER_TICK_MS: '100',
      SCHEDULER_CREATED_DELAY_MS: '300',
      SCHEDULER_PROCESSING_DELAY_MS: '300',
      OUTBOX_TICK_MS: '100',
      WEBHOOK_TICK_MS: '100',
      // A lease of 2 x 1 s + 1 s: the survivor takes over a killed replica's deliveries soon.
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_RETRY_BASE_MS: '50',
      WEBHOOK_RETRY_MAX_MS: '200',
      WEBHOOK_ALLOWED_TARGET_CIDRS: '127.0.0.0/8',
    },
    60_000,
  );
}

describe('webhook delivery with two card-issue replicas as processes (e2e)', () => {
  let db: TestDatabase;
  let sql: Client;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    db = await createTestDatabase('card_issue_webhook_processes');
    receiver = await startWebhookReceiver();
  });

  afterAll(async () => {
    await receiver?.stop();
    await sql?.end();
    await db?.drop();
    figures.print();
  });

  it('each event reaches the receiver, in order per request, though one replica is killed mid-run; duplicates only by event id', async () => {
    // As in scheduler-processes.e2e-spec.ts: on PGlite the replicas start in turn.
    const [a, b] =
      db.kind === 'postgres'
        ? await Promise.all([spawnInstance(db.url), spawnInstance(db.url)])
        : [await spawnInstance(db.url), await spawnInstance(db.url)];
    try {
      sql = new Client({ connectionString: db.url });
      await sql.connect();
      const subscriptionId = randomUUID();
      const secret = generateWebhookSecret();
      await sql.query(
        `INSERT INTO webhook_subscriptions (id, url, event_types, secret, created_at, updated_at)
         VALUES ($1, $2, $3::text[], $4, now(), now())`,
        [subscriptionId, receiver.url, WEBHOOK_EVENT_TYPES, secret],
      );
      receiver.secrets = [secret];
      // Answers take a little while, so the kill below finds deliveries on their way.
      receiver.behaviour = async () => {
        await sleep(20);
        return { status: 200 };
      };

      const owner = await createUser(a.url);
      const started = Date.now();
      const ids: string[] = [];
      for (let i = 0; i < REQUESTS; i++) {
        const res = await request(i % 2 ? a.url : b.url)
          .post(API)
          .send(selfVirtual(owner));
        expect(res.status).toBe(201);
        ids.push(res.body.requestId as string);
      }
      await eventually(async () => receiver.received.length > REQUESTS / 2, 30_000, 20);
      a.proc.kill('SIGKILL');
      await a.exited;

      // created, then PROCESSING and READY by the scheduler: 3 events per request.
      const events = REQUESTS * 3;
      await eventually(
        async () => {
          const { rows } = await sql.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM webhook_deliveries
             WHERE subscription_id = $1 AND state = 'DELIVERED'`,
            [subscriptionId],
          );
          return rows[0].n === events;
        },
        90_000,
        200,
      );
      const elapsed = Date.now() - started;
      const { rows: stored } = await sql.query<{ eventId: string; requestId: string }>(
        `SELECT event_id AS "eventId", request_id AS "requestId" FROM webhook_deliveries
         WHERE subscription_id = $1 ORDER BY id`,
        [subscriptionId],
      );
      expect(stored).toHaveLength(events);
      const unique = receiver.unique();
      expect(new Set(unique.map((event) => event.id))).toEqual(
        new Set(stored.map((event) => event.eventId)),
      );
      expect(receiver.rejected()).toEqual([]);
      // Per request: first arrivals in stored order, and every arrival (duplicates included)
      // never goes back in sequence, so a receiver ordering by sequence and skipping known ids
      // sees each request's history once and in order.
      for (const requestId of ids) {
        const arrivals = receiver.received
          .map((webhook) => webhook.body)
          .filter((event) => event.data.requestId === requestId);
        expect(
          unique.filter((event) => event.data.requestId === requestId).map((event) => event.id),
        ).toEqual(
          stored.filter((event) => event.requestId === requestId).map((event) => event.eventId),
        );
        const sequences = arrivals.map((event) => event.sequence);
        expect(sequences).toEqual([...sequences].sort((x, y) => x - y));
        expect(arrivals.map((event) => event.data.status)).toEqual(
          expect.arrayContaining(['CREATED', 'PROCESSING', 'READY']),
        );
      }
      const duplicates = receiver.received.length - unique.length;
      figures.add({
        scenario: `Two replicas, one SIGKILLed mid-run; ${REQUESTS} requests, scheduler moves`,
        database: figureDatabase(db),
        sent: `${events} events`,
        answered: `${receiver.received.length} POSTs received (${duplicates} duplicates)`,
        stored: `${unique.length} distinct events, in order per request`,
        lost: events - unique.length,
        orphans: 0,
        recovered: `all delivered ${formatMs(elapsed)} after the first POST`,
      });

      b.proc.kill('SIGTERM');
      expect(await b.exited).toBe('SIGTERM');
    } finally {
      for (const i of [a, b])
        if (i.proc.exitCode === null && i.proc.signalCode === null) i.proc.kill('SIGKILL');
    }
  });
});
