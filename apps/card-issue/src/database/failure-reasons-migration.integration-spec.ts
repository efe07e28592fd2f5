import { createTestDatabase, TestDatabase } from '@bank/shared/testing';
import { migratedDataSource, migrationsBefore } from './migration-test-support';
import { FailureReasonsWithoutPassports1795450000000 } from './migrations/1795450000000-FailureReasonsWithoutPassports';

const OLD =
  'The card holder could not be created in the user service: A user with passport series 4510 and number 123456 is already registered';
const NEW =
  'The card holder could not be created in the user service: it conflicts with an existing user';

// A database that stored the old failure reasons is rewritten by the migration, and nothing else.
describe('migration: failure reasons without passports (integration)', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('card_issue_failure_reasons');
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('rewrites the stored reason and the replayable answer that hold a passport', async () => {
    const before = await migratedDataSource(
      db.url,
      migrationsBefore(FailureReasonsWithoutPassports1795450000000),
    );
    try {
      const row = (id: string, reason: string) =>
        before.query(
          `INSERT INTO card_issue_requests (request_id, status, failure_reason, card_owner,
             form_factor, card_holder, created_at, updated_at)
           VALUES ($1, 'FAILED', $2, 'X00001', 'VIRTUAL', '{"nameless": true}', now(), now())`,
          [id, reason],
        );
      await row('RCARDB23112026000001', OLD);
      await row('RCARDB23112026000002', 'User X00009 does not exist');
      await before.query(
        `INSERT INTO card_issue_idempotency_keys (key, request_hash, created_at, response_status, response_body)
         VALUES ('k1', repeat('a', 64), now(), 201, $1)`,
        [JSON.stringify({ requestId: 'RCARDB23112026000001', failureReason: OLD })],
      );
    } finally {
      await before.destroy();
    }

    const after = await migratedDataSource(db.url);
    try {
      expect(
        await after.query(
          `SELECT request_id, failure_reason FROM card_issue_requests ORDER BY request_id`,
        ),
      ).toEqual([
        { request_id: 'RCARDB23112026000001', failure_reason: NEW },
        { request_id: 'RCARDB23112026000002', failure_reason: 'User X00009 does not exist' },
      ]);
      const [key] = await after.query<{ response_body: string }[]>(
        `SELECT response_body FROM card_issue_idempotency_keys`,
      );
      expect(JSON.parse(key.response_body)).toEqual({
        requestId: 'RCARDB23112026000001',
        failureReason: NEW,
      });
    } finally {
      await after.destroy();
    }
  });
});
