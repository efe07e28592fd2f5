import type { CorrelationHeaders } from '@bank/shared/tracing';
import type {
  DownstreamFormFactor,
  DownstreamOperationStatus,
} from '../integrations/operations/operations.client';

/** Creates the operation of a new request (written by INSERT_CARD_ISSUE_SQL). */
export interface OperationCreatePayload {
  requestId: string;
  cardOwner: string;
  /** null for a nameless card. */
  holderUserId: string | null;
  formFactor: DownstreamFormFactor;
  status: DownstreamOperationStatus;
  /** Always 1: the first status of a request. */
  sequence: number;
}

/**
 * Mirrors a status change (written by APPLY_STATUS_CHANGE_SQL and MOVE_DUE_BATCH_SQL). The
 * sequence increases per request, so the operation service ignores a stale or repeated one.
 */
export interface OperationStatusPayload {
  requestId: string;
  status: DownstreamOperationStatus;
  sequence: number;
}

/**
 * What an outbox message carries: its `type` column and the jsonb of its `payload` column. The
 * SQL in card-issues.sql.ts writes these shapes (see insertOutboxMessage there); OutboxService
 * reads them back.
 */
export type OutboxPayload =
  | { type: 'operation.create'; payload: OperationCreatePayload }
  | { type: 'operation.status'; payload: OperationStatusPayload };

export type OutboxMessageType = OutboxPayload['type'];

/** The outbox_messages.state column (see OutboxMessage). */
export type OutboxMessageState = 'PENDING' | 'DELIVERED' | 'SUPERSEDED' | 'DEAD';

/**
 * A message claimed for delivery, with the attempt it is on (1 for the first) and the trace
 * context and request id of the change that wrote it (null when it had none).
 */
export type ClaimedMessage = OutboxPayload & {
  id: string;
  requestId: string;
  attempts: number;
  traceContext: CorrelationHeaders | null;
};
