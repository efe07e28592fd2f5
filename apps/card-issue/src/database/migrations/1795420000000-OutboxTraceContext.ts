import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Outbox messages keep the trace context and request id of the change that wrote them
 * ({traceparent, tracestate, x-request-id}), so their delivery continues that request's trace
 * and carries its id. Nullable: older messages, and changes made outside a request (the
 * scheduler's moves while tracing is off), have none.
 */
export class OutboxTraceContext1795420000000 implements MigrationInterface {
  name = 'OutboxTraceContext1795420000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE outbox_messages ADD COLUMN trace_context jsonb NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE outbox_messages DROP COLUMN trace_context`);
  }
}
