import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Card issue requests, their status history, idempotency keys, the outbox to the
 * operation service, and the per-day request number generator.
 */
export class CardIssues1795394039976 implements MigrationInterface {
  name = 'CardIssues1795394039976';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE card_issue_requests (
        request_id varchar(20) PRIMARY KEY,
        status varchar(16) NOT NULL,
        failure_reason text NULL,
        card_owner varchar(6) NOT NULL,
        holder_user_id varchar(6) NULL,
        form_factor varchar(8) NOT NULL,
        card_holder jsonb NOT NULL,
        options jsonb NULL,
        delivery jsonb NULL,
        operation_id uuid NULL,
        status_sequence int NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT ck_card_issue_requests_status CHECK (status IN ('CREATED','PROCESSING','READY','PLASTIC_READY','FAILED')),
        CONSTRAINT ck_card_issue_requests_form_factor CHECK (form_factor IN ('VIRTUAL','PLASTIC')),
        CONSTRAINT ck_card_issue_requests_ready CHECK (
          (status <> 'READY' OR form_factor = 'VIRTUAL') AND (status <> 'PLASTIC_READY' OR form_factor = 'PLASTIC'))
      )`);
    await queryRunner.query(
      `CREATE INDEX ix_card_issue_requests_owner ON card_issue_requests (card_owner, created_at)`,
    );
    await queryRunner.query(
      `CREATE INDEX ix_card_issue_requests_holder ON card_issue_requests (holder_user_id, created_at)`,
    );
    await queryRunner.query(
      `CREATE INDEX ix_card_issue_requests_status ON card_issue_requests (status, updated_at)`,
    );

    await queryRunner.query(`
      CREATE TABLE card_issue_status_history (
        id bigserial PRIMARY KEY,
        request_id varchar(20) NOT NULL REFERENCES card_issue_requests (request_id) ON DELETE CASCADE,
        status varchar(16) NOT NULL,
        source varchar(16) NOT NULL,
        at timestamptz NOT NULL,
        CONSTRAINT ck_card_issue_status_history_source CHECK (source IN ('api','scheduler'))
      )`);
    await queryRunner.query(
      `CREATE INDEX ix_card_issue_status_history_request ON card_issue_status_history (request_id, id)`,
    );

    await queryRunner.query(`
      CREATE TABLE card_issue_idempotency_keys (
        key varchar(255) PRIMARY KEY,
        request_hash char(64) NOT NULL,
        response jsonb NULL,
        created_at timestamptz NOT NULL
      )`);
    await queryRunner.query(
      `CREATE INDEX ix_card_issue_idempotency_keys_created ON card_issue_idempotency_keys (created_at)`,
    );

    await queryRunner.query(`
      CREATE TABLE outbox_messages (
        id bigserial PRIMARY KEY,
        request_id varchar(20) NOT NULL,
        type varchar(32) NOT NULL,
        payload jsonb NOT NULL,
        attempts int NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        locked_until timestamptz NULL,
        delivered_at timestamptz NULL,
        last_error text NULL,
        created_at timestamptz NOT NULL
      )`);
    await queryRunner.query(
      `CREATE INDEX ix_outbox_messages_pending ON outbox_messages (next_attempt_at) WHERE delivered_at IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX ix_outbox_messages_request ON outbox_messages (request_id, id)`,
    );

    // One sequence per business day (created on the day's first request) gives the 6-digit
    // number of a request id inside the INSERT itself: no lock, no extra round trip. Past
    // 999999 (REQUEST_IDS_PER_DAY - 1 of libs/shared/identifiers/src/request-id.ts) nextval fails
    // with 2200H, which the service answers with 503.
    await queryRunner.query(`
      CREATE FUNCTION card_issue_next_request_number(business_day text) RETURNS bigint
      LANGUAGE plpgsql AS $$
      DECLARE
        seq_name text := 'card_issue_request_seq_' || business_day;
      BEGIN
        IF business_day !~ '^[0-9]{8}$' THEN
          RAISE EXCEPTION 'business day must be ddMMyyyy, got %', business_day;
        END IF;
        BEGIN
          RETURN nextval(seq_name);
        EXCEPTION WHEN undefined_table THEN
          BEGIN
            EXECUTE format('CREATE SEQUENCE IF NOT EXISTS %I MINVALUE 0 MAXVALUE 999999 START 0 NO CYCLE', seq_name);
          EXCEPTION WHEN duplicate_table OR unique_violation THEN
            NULL; -- another transaction created it at the same moment
          END;
          RETURN nextval(seq_name);
        END;
      END $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION card_issue_next_request_number(text)`);
    await queryRunner.query(`DROP TABLE outbox_messages`);
    await queryRunner.query(`DROP TABLE card_issue_idempotency_keys`);
    await queryRunner.query(`DROP TABLE card_issue_status_history`);
    await queryRunner.query(`DROP TABLE card_issue_requests`);
  }
}
