import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { readQuery } from '@bank/shared/database';
import type { CardIssueStatus, FormFactor, StatusSource } from './card-issue-status';
import { STATUS_CODES } from './card-issue-status';
import { CardIssueRequest } from './entities/card-issue-request.entity';

export interface NewCardIssueRow {
  businessDay: string; // ddMMyyyy
  status: CardIssueStatus;
  failureReason: string | null;
  cardOwner: string;
  holderUserId: string | null;
  formFactor: FormFactor;
  cardHolder: object;
  options: object | null;
  delivery: object | null;
  now: Date;
  /** The idempotency key whose response this insert records, if any. */
  idempotencyKey: string | null;
}

/** nextval past a sequence's MAXVALUE. */
const PG_SEQUENCE_LIMIT_EXCEEDED = '2200H';

export function isSequenceExhausted(error: unknown): boolean {
  return (
    error instanceof QueryFailedError &&
    (error.driverError as { code?: string }).code === PG_SEQUENCE_LIMIT_EXCEEDED
  );
}

/** A request with its status history, as the GET endpoints read it. Instants in epoch ms. */
export interface CardIssueWithHistory {
  requestId: string;
  status: CardIssueStatus;
  failureReason: string | null;
  cardOwner: string;
  formFactor: FormFactor;
  cardHolder: Record<string, unknown>;
  options: Record<string, unknown> | null;
  delivery: Record<string, unknown> | null;
  createdAt: number;
  updatedAt: number;
  history: { status: CardIssueStatus; source: StatusSource; at: number }[];
}

/**
 * The columns of a CardIssueWithHistory, history included, for a request row `r`: one
 * statement and one round trip per read, whatever the number of requests. Instants leave
 * the database as epoch milliseconds (the precision the service writes them with), so no
 * timestamp text is parsed and the session time zone plays no part.
 */
const RECORD_COLUMNS = `r.request_id AS "requestId", r.status, r.failure_reason AS "failureReason",
  r.card_owner AS "cardOwner", r.form_factor AS "formFactor", r.card_holder AS "cardHolder", r.options, r.delivery,
  floor(extract(epoch FROM r.created_at) * 1000)::float8 AS "createdAt",
  floor(extract(epoch FROM r.updated_at) * 1000)::float8 AS "updatedAt",
  (SELECT coalesce(json_agg(json_build_object('status', h.status, 'source', h.source,
                                              'at', floor(extract(epoch FROM h.at) * 1000)) ORDER BY h.id), '[]')
     FROM card_issue_status_history h WHERE h.request_id = r.request_id) AS history`;

@Injectable()
export class CardIssuesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Stores a new request in one statement: the request with its id generated from the
   * day's sequence, its first history entry, the outbox message that creates its
   * operation, and the response of its idempotency key.
   */
  async insert(row: NewCardIssueRow): Promise<string> {
    const rows = await this.dataSource.query<{ requestId: string }[]>(
      `WITH req AS (
         INSERT INTO card_issue_requests (request_id, status, failure_reason, card_owner, holder_user_id, form_factor,
                                          card_holder, options, delivery, status_sequence, created_at, updated_at)
         VALUES ('RCARDB' || $1::text || lpad(card_issue_next_request_number($1::text)::text, 6, '0'),
                 $2::text, $3::text, $4::text, $5::text, $6::text, $7::jsonb, $8::jsonb, $9::jsonb, 1, $10::timestamptz, $10::timestamptz)
         RETURNING request_id
       ), history AS (
         INSERT INTO card_issue_status_history (request_id, status, source, at)
         SELECT request_id, $2::text, 'api', $10::timestamptz FROM req
       ), outbox AS (
         INSERT INTO outbox_messages (request_id, type, payload, next_attempt_at, created_at)
         SELECT request_id, 'operation.create',
                jsonb_build_object('requestId', request_id, 'cardOwner', $4::text, 'holderUserId', $5::text,
                                   'formFactor', $6::text, 'status', $2::text, 'sequence', 1),
                now(), now()
         FROM req
       ), idempotency AS (
         UPDATE card_issue_idempotency_keys k
         SET response = jsonb_build_object('requestId', req.request_id, 'status', $2::text,
                                           'statusCode', $12::text, 'failureReason', $3::text)
         FROM req WHERE k.key = $11::text
       )
       SELECT request_id AS "requestId" FROM req`,
      [
        row.businessDay,
        row.status,
        row.failureReason,
        row.cardOwner,
        row.holderUserId,
        row.formFactor,
        JSON.stringify(row.cardHolder),
        row.options ? JSON.stringify(row.options) : null,
        row.delivery ? JSON.stringify(row.delivery) : null,
        row.now,
        row.idempotencyKey,
        STATUS_CODES[row.status],
      ],
    );
    return rows[0].requestId;
  }

  async findById(requestId: string): Promise<CardIssueWithHistory | null> {
    const rows = await readQuery<CardIssueWithHistory>(
      this.dataSource,
      `SELECT ${RECORD_COLUMNS} FROM card_issue_requests r WHERE r.request_id = $1`,
      [requestId],
    );
    return rows[0] ?? null;
  }

  /**
   * Requests whose owner or holder is the user, newest first. Two index range scans
   * (owner, holder) merged, so the cost follows the page, not the table.
   */
  findByClient(userId: string, limit: number, offset: number): Promise<CardIssueWithHistory[]> {
    return readQuery<CardIssueWithHistory>(
      this.dataSource,
      `SELECT ${RECORD_COLUMNS}
       FROM (
         (SELECT request_id, created_at FROM card_issue_requests WHERE card_owner = $1
          ORDER BY created_at DESC, request_id DESC LIMIT $2)
         UNION
         (SELECT request_id, created_at FROM card_issue_requests WHERE holder_user_id = $1
          ORDER BY created_at DESC, request_id DESC LIMIT $2)
         ORDER BY created_at DESC, request_id DESC LIMIT $3 OFFSET $4
       ) page
       JOIN card_issue_requests r ON r.request_id = page.request_id
       ORDER BY page.created_at DESC, page.request_id DESC`,
      [userId, limit + offset, limit, offset],
    );
  }

  /** Runs work in a transaction; everything inside must use the given manager. */
  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** Locks a request row for a status change. */
  lockForUpdate(manager: EntityManager, requestId: string): Promise<CardIssueRequest | null> {
    return manager
      .getRepository(CardIssueRequest)
      .createQueryBuilder('r')
      .setLock('pessimistic_write')
      .where('r.request_id = :requestId', { requestId })
      .getOne();
  }

  /**
   * Applies a status change to a locked request: the row, a history entry and the outbox
   * message that mirrors it to the operation service, in the caller's transaction.
   */
  async applyStatusChange(
    manager: EntityManager,
    request: CardIssueRequest,
    status: CardIssueStatus,
    failureReason: string | null,
    source: StatusSource,
    now: Date,
  ): Promise<CardIssueRequest> {
    const sequence = request.statusSequence + 1;
    await manager.query(
      `WITH upd AS (
         UPDATE card_issue_requests SET status = $2, failure_reason = $3, status_sequence = $4, updated_at = $5
         WHERE request_id = $1 RETURNING request_id
       ), history AS (
         INSERT INTO card_issue_status_history (request_id, status, source, at) SELECT request_id, $2, $6, $5 FROM upd
       )
       INSERT INTO outbox_messages (request_id, type, payload, next_attempt_at, created_at)
       SELECT request_id, 'operation.status',
              jsonb_build_object('requestId', request_id, 'status', $2::text, 'sequence', $4::int), now(), now()
       FROM upd`,
      [request.requestId, status, failureReason, sequence, now, source],
    );
    return { ...request, status, failureReason, statusSequence: sequence, updatedAt: now };
  }
}
