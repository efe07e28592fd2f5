import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { PG_SEQUENCE_LIMIT_EXCEEDED, postgresError, readQuery } from '@bank/shared/database';
import type { CardIssueStatus, FormFactor, StatusSource } from './card-issue-status.model';
import { STATUS_CODES } from './card-issue-status.model';
import {
  APPLY_STATUS_CHANGE_SQL,
  INSERT_CARD_ISSUE_SQL,
  SELECT_CARD_ISSUES_BY_CLIENT_SQL,
  SELECT_CARD_ISSUE_BY_ID_SQL,
} from './card-issues.sql';
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

export function isSequenceExhausted(error: unknown): boolean {
  return postgresError(error)?.code === PG_SEQUENCE_LIMIT_EXCEEDED;
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

@Injectable()
export class CardIssuesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Stores a new request in one statement: the request with its id generated from the
   * day's sequence, its first history entry, the outbox message that creates its
   * operation, and the response of its idempotency key.
   */
  async insert(row: NewCardIssueRow): Promise<string> {
    const rows = await this.dataSource.query<{ requestId: string }[]>(INSERT_CARD_ISSUE_SQL, [
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
    ]);
    return rows[0].requestId;
  }

  async findById(requestId: string): Promise<CardIssueWithHistory | null> {
    const rows = await readQuery<CardIssueWithHistory>(
      this.dataSource,
      SELECT_CARD_ISSUE_BY_ID_SQL,
      [requestId],
    );
    return rows[0] ?? null;
  }

  /**
   * Requests whose owner or holder is the user, newest first. Two index range scans
   * (owner, holder) merged, so the cost follows the page, not the table.
   */
  findByClient(userId: string, limit: number, offset: number): Promise<CardIssueWithHistory[]> {
    return readQuery<CardIssueWithHistory>(this.dataSource, SELECT_CARD_ISSUES_BY_CLIENT_SQL, [
      userId,
      limit + offset,
      limit,
      offset,
    ]);
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
    await manager.query(APPLY_STATUS_CHANGE_SQL, [
      request.requestId,
      status,
      failureReason,
      sequence,
      now,
      source,
    ]);
    return { ...request, status, failureReason, statusSequence: sequence, updatedAt: now };
  }
}
