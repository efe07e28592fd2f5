import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { PG_SEQUENCE_LIMIT_EXCEEDED, postgresError, readQuery } from '@bank/shared/database';
import type { CorrelationHeaders } from '@bank/shared/tracing';
import type { CardIssueStatus, FormFactor, StatusSource } from './card-issue-status.model';
import {
  APPLY_STATUS_CHANGE_SQL,
  CLAIM_ABANDONED_HOLDER_SQL,
  CLAIM_HOLDER_CREATION_SQL,
  FORGET_HOLDER_CREATION_SQL,
  HOLDER_REFERENCED_SQL,
  RENEW_HOLDER_SWEEP_SQL,
  INSERT_CARD_ISSUE_SQL,
  LOCK_CARD_ISSUE_SQL,
  MOVE_DUE_BATCH_SQL,
  RECORD_OPERATION_ID_SQL,
  SELECT_CARD_ISSUES_BY_CLIENT_SQL,
  SELECT_CARD_ISSUE_BY_ID_SQL,
  SELECT_DUE_BACKLOG_SQL,
  SELECT_OPERATION_IDS_SQL,
} from './card-issues.sql';

export interface NewCardIssueRow {
  businessDay: string; // ddMMyyyy
  status: CardIssueStatus;
  failureReason: string | null;
  cardOwner: string;
  holderUserId: string | null;
  /** The key the holder was created with in the user service (claimHolderCreation), if one was. */
  holderCreationKey: string | null;
  formFactor: FormFactor;
  cardHolder: object;
  options: object | null;
  delivery: object | null;
  now: Date;
  /** The trace context and request id of the change (see TraceContextOfChange). */
  traceContext: TraceContextOfChange;
}

export function isSequenceExhausted(error: unknown): boolean {
  return postgresError(error)?.code === PG_SEQUENCE_LIMIT_EXCEEDED;
}

/**
 * The trace context and request id of a change, as its caller knows them (null when it has
 * none), stored with the outbox message and the webhook events the change writes: their
 * deliveries continue that trace under that id.
 */
export type TraceContextOfChange = CorrelationHeaders | null;

/** The trace_context parameter of a change's statement: jsonb text, or null. */
function traceContextParameter(traceContext: TraceContextOfChange): string | null {
  return traceContext ? JSON.stringify(traceContext) : null;
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

/** What a status change reads from the request it locked (LOCK_CARD_ISSUE_SQL). */
export interface LockedCardIssue {
  requestId: string;
  status: CardIssueStatus;
  failureReason: string | null;
  formFactor: FormFactor;
  /** Number of status changes so far. */
  statusSequence: number;
}

/** The instants that make requests due for an automatic move, and the batch size. */
export interface DueBatch {
  now: Date;
  /** CREATED at or before this moves to PROCESSING. */
  createdBefore: Date;
  /** PROCESSING at or before this moves to READY or PLASTIC_READY. */
  processingBefore: Date;
  limit: number;
}

/**
 * The one owner of the card_issue_* tables: runs the statements of card-issues.sql.ts, for the
 * card issue service, the automatic moves and the outbox (which records
 * the operation ids).
 */
@Injectable()
export class CardIssuesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Stores a new request in one statement: the request with its id generated from the
   * day's sequence, its first history entry and the outbox message that creates its
   * operation. Runs in the transaction of `manager` when given.
   */
  async insert(row: NewCardIssueRow, manager?: EntityManager): Promise<string> {
    const runner = manager ?? this.dataSource;
    const rows = await runner.query<{ requestId: string }[]>(INSERT_CARD_ISSUE_SQL, [
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
      traceContextParameter(row.traceContext),
      row.holderCreationKey,
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

  /** Throws the database's error when it is out of reach. */
  async ping(): Promise<void> {
    await this.dataSource.query('SELECT 1');
  }

  /** Runs work in a transaction; everything inside must use the given manager. */
  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** Locks a request row for a status change, in the caller's transaction. */
  async lockForUpdate(manager: EntityManager, requestId: string): Promise<LockedCardIssue | null> {
    const rows = await manager.query<LockedCardIssue[]>(LOCK_CARD_ISSUE_SQL, [requestId]);
    return rows[0] ?? null;
  }

  /**
   * Applies a status change to a locked request: the row, a history entry, its webhook events
   * and the outbox message that mirrors it to the operation service, in the caller's
   * transaction; the events and the message carry `traceContext`.
   */
  async applyStatusChange(
    manager: EntityManager,
    request: LockedCardIssue,
    status: CardIssueStatus,
    failureReason: string | null,
    source: StatusSource,
    now: Date,
    traceContext: TraceContextOfChange,
  ): Promise<LockedCardIssue> {
    const sequence = request.statusSequence + 1;
    await manager.query(APPLY_STATUS_CHANGE_SQL, [
      request.requestId,
      status,
      failureReason,
      sequence,
      now,
      source,
      traceContextParameter(traceContext),
      request.status,
    ]);
    return { ...request, status, failureReason, statusSequence: sequence };
  }

  /**
   * Moves one batch of due requests in one statement (MOVE_DUE_BATCH_SQL: claimed with FOR
   * UPDATE SKIP LOCKED, moved, with their history entries and outbox messages); returns how
   * many moved.
   */
  async moveDueBatch(batch: DueBatch): Promise<number> {
    const moved = await this.dataSource.query<unknown[]>(MOVE_DUE_BATCH_SQL, [
      batch.now,
      batch.createdBefore,
      batch.processingBefore,
      batch.limit,
    ]);
    return moved.length;
  }

  /** The scheduler's due backlog (SELECT_DUE_BACKLOG_SQL), each kind counted up to `cap`. */
  async dueBacklog(
    batch: Omit<DueBatch, 'limit'>,
    cap: number,
  ): Promise<{ due: number; oldestDueSeconds: number }> {
    const [row] = await this.dataSource.query<{ due: number; oldestDueSeconds: number }[]>(
      SELECT_DUE_BACKLOG_SQL,
      [batch.createdBefore, batch.processingBefore, cap],
    );
    return row;
  }

  /** The operation ids recorded for these requests (null while their operation is not created). */
  async operationIdsOf(requestIds: string[]): Promise<Map<string, string | null>> {
    const rows = await this.dataSource.query<{ requestId: string; operationId: string | null }[]>(
      SELECT_OPERATION_IDS_SQL,
      [requestIds],
    );
    return new Map(rows.map((row) => [row.requestId, row.operationId]));
  }

  /** Records the id the operation service gave a request, in the caller's transaction. */
  async recordOperationId(
    manager: EntityManager,
    requestId: string,
    operationId: string,
  ): Promise<void> {
    await manager.query(RECORD_OPERATION_ID_SQL, [requestId, operationId]);
  }

  /**
   * Notes that a third-party holder is about to be created with `key` (stored with the request
   * by insert); false while the sweeper is deleting what an earlier attempt with that key created.
   */
  async claimHolderCreation(key: string, holder: object): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(CLAIM_HOLDER_CREATION_SQL, [
      key,
      JSON.stringify(holder),
    ]);
    return rows.length > 0;
  }

  /** The oldest holder creation abandoned for `abandonedMs`, leased to `sweeper` for `leaseMs`. */
  async claimAbandonedHolder(
    abandonedMs: number,
    leaseMs: number,
    sweeper: string,
  ): Promise<{ key: string; holder: Record<string, unknown> } | null> {
    // TypeORM answers an UPDATE with [rows, affected].
    const [rows] = await this.dataSource.query<
      [{ key: string; holder: Record<string, unknown> }[], number]
    >(CLAIM_ABANDONED_HOLDER_SQL, [abandonedMs, leaseMs, sweeper]);
    return rows[0] ?? null;
  }

  /** Whether `sweeper` still holds `key`, for another `leaseMs`. */
  async renewHolderSweep(key: string, sweeper: string, leaseMs: number): Promise<boolean> {
    const [rows] = await this.dataSource.query<[unknown[], number]>(RENEW_HOLDER_SWEEP_SQL, [
      key,
      sweeper,
      leaseMs,
    ]);
    return rows.length > 0;
  }

  async isHolderReferenced(userId: string): Promise<boolean> {
    const rows = await this.dataSource.query<{ referenced: boolean }[]>(HOLDER_REFERENCED_SQL, [
      userId,
    ]);
    return rows[0].referenced;
  }

  async forgetHolderCreation(key: string, sweeper: string): Promise<void> {
    await this.dataSource.query(FORGET_HOLDER_CREATION_SQL, [key, sweeper]);
  }
}
