import { randomUUID } from 'node:crypto';
import { createTestDatabase, TestDatabase } from '@bank/shared/testing';
import { migratedDataSource, migrationsBefore } from './migration-test-support';
import { WebhookAttemptErrors1795470000000 } from './migrations/1795470000000-WebhookAttemptErrors';

/** What earlier versions stored, and what the delivery log says of it now. */
const STORED: [string | null, string | null][] = [
  ['HTTP 500', 'HTTP 500'],
  ['timeout after 5000 ms', 'timeout'],
  [
    'target refused (address-not-allowed): db.internal resolves only to refused addresses (10.0.0.7)',
    'target refused',
  ],
  ['ECONNREFUSED: connect ECONNREFUSED 10.0.0.7:5432', 'connection failed'],
  ['ENOTFOUND: getaddrinfo ENOTFOUND db.internal', 'connection failed'],
  ['socket hang up', 'connection failed'],
  [null, null],
];

// A database whose delivery log holds addresses and resolver answers is rewritten by the
// migration to the texts the log shows now, and nothing else changes.
describe('migration: webhook attempt errors without network details (integration)', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('card_issue_webhook_attempt_errors');
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('rewrites last_error and the attempt log to the category of each error', async () => {
    const before = await migratedDataSource(
      db.url,
      migrationsBefore(WebhookAttemptErrors1795470000000),
    );
    try {
      const subscription = randomUUID();
      await before.query(
        `INSERT INTO webhook_subscriptions (id, url, event_types, secret, created_at, updated_at)
         VALUES ($1, 'https://receiver.example.com/hook', '{card_issue.created}', 'whsec_x', now(), now())`,
        [subscription],
      );
      for (const [i, [error]] of STORED.entries()) {
        await before.query(
          `WITH d AS (
             INSERT INTO webhook_deliveries (subscription_id, event_id, event_type, request_id, sequence,
               data, occurred_at, state, attempts, next_attempt_at, last_error, created_at)
             VALUES ($1, $2, 'card_issue.created', $3, 1, '{}', now(), 'DEAD', 1, 'infinity', $4, now())
             RETURNING id)
           INSERT INTO webhook_delivery_attempts (delivery_id, attempt, at, latency_ms, error)
           SELECT id, 1, now(), 5, $4 FROM d`,
          [subscription, randomUUID(), `RCARDB2311202600000${i}`, error],
        );
      }
    } finally {
      await before.destroy();
    }

    const after = await migratedDataSource(db.url);
    try {
      const rows = await after.query<{ last: string | null; attempt: string | null }[]>(
        `SELECT d.last_error AS last, a.error AS attempt FROM webhook_deliveries d
         JOIN webhook_delivery_attempts a ON a.delivery_id = d.id ORDER BY d.request_id`,
      );
      expect(rows).toEqual(STORED.map(([, shown]) => ({ last: shown, attempt: shown })));
    } finally {
      await after.destroy();
    }
  });
});
