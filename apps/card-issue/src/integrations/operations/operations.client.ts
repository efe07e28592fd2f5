import { Injectable } from '@nestjs/common';
import { UUID_PATTERN } from '@bank/shared/identifiers';
import { GatewayHttp } from '../gateway-http.client';
import { GatewayResult, toGatewayResult } from '../gateway-result.model';

export type DownstreamOperationStatus =
  'CREATED' | 'PROCESSING' | 'READY' | 'PLASTIC_READY' | 'FAILED';

export type DownstreamFormFactor = 'VIRTUAL' | 'PLASTIC';

export interface NewOperation {
  /** Card issue request id; the operation service keeps one operation per request id. */
  requestId: string;
  cardOwner: string;
  /** null for a nameless card. */
  holderUserId: string | null;
  formFactor: DownstreamFormFactor;
  status: DownstreamOperationStatus;
}

export interface DownstreamOperation {
  /** UUID given by the operation service. */
  id: string;
  requestId: string;
  cardOwner: string;
  holderUserId: string | null;
  formFactor: DownstreamFormFactor;
  status: DownstreamOperationStatus;
  /** ISO 8601 instants. */
  createdAt: string;
  updatedAt: string;
}

const SERVICE = 'operation service';

/** Gateway to the operation service ({OPERATION_API_URL}, default {base_url}/operation-api). */
@Injectable()
export class OperationsClient {
  constructor(private readonly http: GatewayHttp) {}

  /**
   * ok with the operation (new, or the one already made for this requestId), conflict (the
   * requestId has an operation for another owner, holder or form factor), or unavailable.
   * Retried: the service keeps one operation per requestId, so a repeat creates nothing new.
   */
  async createOperation(input: NewOperation): Promise<GatewayResult<DownstreamOperation>> {
    const outcome = await this.http.send(SERVICE, {
      method: 'POST',
      path: '/api/v1/operations',
      body: {
        requestId: input.requestId,
        cardOwner: input.cardOwner,
        holderUserId: input.holderUserId,
        formFactor: input.formFactor,
        status: input.status,
      },
      idempotent: true,
    });
    return toGatewayResult<DownstreamOperation>(SERVICE, outcome, [201, 200]);
  }

  /**
   * ok with the operation after the update, not-found, or unavailable. With a sequence (a
   * positive integer increasing per operation) the service ignores stale or repeated updates,
   * which makes the call safe to retry; without one it is sent once.
   */
  async updateStatus(
    operationId: string,
    status: DownstreamOperationStatus,
    sequence?: number,
  ): Promise<GatewayResult<DownstreamOperation>> {
    if (!UUID_PATTERN.test(operationId)) return { kind: 'not-found' };
    const outcome = await this.http.send(SERVICE, {
      method: 'PATCH',
      path: `/api/v1/operations/${encodeURIComponent(operationId)}/status`,
      body: sequence === undefined ? { status } : { status, sequence },
      idempotent: sequence !== undefined,
    });
    return toGatewayResult<DownstreamOperation>(SERVICE, outcome, [200]);
  }
}
