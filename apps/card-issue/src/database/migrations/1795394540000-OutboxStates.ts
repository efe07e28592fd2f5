import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Outbox messages get a state (PENDING, DELIVERED, SUPERSEDED by a newer status of the same
 * request, DEAD after OUTBOX_MAX_ATTEMPTS) and the instant they left PENDING. The indexes are
 * partial, over the rows each statement reads, so their size follows the undelivered backlog
 * and not the table: the claim's due order, the per-request head check, and the purge.
 */
export class OutboxStates1795394540000 implements MigrationInterface {
  name = 'OutboxStates1795394540000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE outbox_messages
      ADD COLUMN state varchar(12) NOT NULL DEFAULT 'PENDING',
      ADD COLUMN settled_at timestamptz NULL,
      ADD CONSTRAINT ck_outbox_messages_state CHECK (state IN ('PENDING','DELIVERED','SUPERSEDED','DEAD'))`);
    await queryRunner.query(
      `UPDATE outbox_messages SET state = 'DELIVERED', settled_at = delivered_at WHERE delivered_at IS NOT NULL`,
    );
    // A status backlog left by the old code: only each request's newest status still matters.
    await queryRunner.query(`UPDATE outbox_messages o SET state = 'SUPERSEDED', settled_at = now()
      WHERE o.delivered_at IS NULL AND o.type = 'operation.status' AND EXISTS (
        SELECT 1 FROM outbox_messages n
        WHERE n.request_id = o.request_id AND n.delivered_at IS NULL AND n.type = 'operation.status' AND n.id > o.id)`);
    await queryRunner.query(`DROP INDEX ix_outbox_messages_pending`);
    await queryRunner.query(`DROP INDEX ix_outbox_messages_request`);
    await queryRunner.query(
      `CREATE INDEX ix_outbox_messages_due ON outbox_messages (next_attempt_at, id) WHERE state = 'PENDING'`,
    );
    await queryRunner.query(
      `CREATE INDEX ix_outbox_messages_open ON outbox_messages (request_id, id) WHERE state IN ('PENDING','DEAD')`,
    );
    await queryRunner.query(
      `CREATE INDEX ix_outbox_messages_settled ON outbox_messages (settled_at) WHERE state IN ('DELIVERED','SUPERSEDED')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX ix_outbox_messages_settled`);
    await queryRunner.query(`DROP INDEX ix_outbox_messages_open`);
    await queryRunner.query(`DROP INDEX ix_outbox_messages_due`);
    await queryRunner.query(
      `UPDATE outbox_messages SET delivered_at = coalesce(delivered_at, settled_at) WHERE state = 'SUPERSEDED'`,
    );
    await queryRunner.query(`ALTER TABLE outbox_messages
      DROP CONSTRAINT ck_outbox_messages_state, DROP COLUMN settled_at, DROP COLUMN state`);
    await queryRunner.query(
      `CREATE INDEX ix_outbox_messages_request ON outbox_messages (request_id, id)`,
    );
    await queryRunner.query(
      `CREATE INDEX ix_outbox_messages_pending ON outbox_messages (next_attempt_at) WHERE delivered_at IS NULL`,
    );
  }
}
