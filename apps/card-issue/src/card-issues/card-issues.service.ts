import { Inject, Injectable, Logger } from '@nestjs/common';
import { GatewayResult } from '../integrations/gateway-result.model';
import { BranchesClient } from '../integrations/branches/branches.client';
import { UsersClient } from '../integrations/users/users.client';
import { OutboxService } from '../outbox/outbox.service';
import { CardIssueStatus, STATUS_CODES, isStatusAllowedFor } from './card-issue-status.model';
import {
  CardIssueWithHistory,
  CardIssuesRepository,
  isSequenceExhausted,
} from './card-issues.repository';
import {
  CardIssueNotFoundError,
  DownstreamUnavailableError,
  IdempotencyKeyInProgressError,
  IdempotencyKeyReusedError,
  RequestIdsExhaustedError,
  StatusNotAllowedError,
} from './card-issues.errors';
import { CardIssueRequestDto } from './dto/card-issue-request.dto';
import { CardIssueRecordDto, CardIssueResponseDto } from './dto/card-issue-response.dto';
import { IdempotencyRepository, hashBody } from './idempotency.repository';
import { BUSINESS_TIME_ZONE, Clock, formatLocalDateTime } from '@bank/shared/calendar';
import { requestIdBusinessDay } from '@bank/shared/identifiers';

export interface CreateResult {
  response: CardIssueResponseDto;
  /** True when an Idempotency-Key replayed an earlier response. */
  replayed: boolean;
}

/** How long a request waits for a parallel one with the same Idempotency-Key to finish. */
const IDEMPOTENCY_WAIT_MS = 15_000;
const IDEMPOTENCY_POLL_MS = 25;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

@Injectable()
export class CardIssuesService {
  private readonly logger = new Logger(CardIssuesService.name);

  constructor(
    private readonly repository: CardIssuesRepository,
    private readonly idempotency: IdempotencyRepository,
    private readonly users: UsersClient,
    private readonly branches: BranchesClient,
    private readonly outbox: OutboxService,
    private readonly clock: Clock,
    @Inject(BUSINESS_TIME_ZONE) private readonly timeZone: string,
  ) {}

  async create(dto: CardIssueRequestDto, idempotencyKey?: string): Promise<CreateResult> {
    if (!idempotencyKey) return { response: await this.process(dto, null), replayed: false };

    const requestHash = hashBody(dto);
    const deadline = Date.now() + IDEMPOTENCY_WAIT_MS;
    while (!(await this.idempotency.claim(idempotencyKey, requestHash, this.clock.now()))) {
      const existing = await this.idempotency.find(idempotencyKey);
      if (existing) {
        if (existing.requestHash !== requestHash) throw new IdempotencyKeyReusedError();
        if (existing.response)
          return { response: existing.response as unknown as CardIssueResponseDto, replayed: true };
      }
      // The first request with this key is still running (or just gave the key back).
      if (Date.now() > deadline) throw new IdempotencyKeyInProgressError();
      await sleep(IDEMPOTENCY_POLL_MS);
    }
    try {
      return { response: await this.process(dto, idempotencyKey), replayed: false };
    } catch (error) {
      await this.idempotency.release(idempotencyKey);
      throw error;
    }
  }

  /** Checks the referenced users and branch, creates a third-party holder, stores the request. */
  private async process(
    dto: CardIssueRequestDto,
    idempotencyKey: string | null,
  ): Promise<CardIssueResponseDto> {
    const request = dto.request;
    const holder = request.cardHolder;
    const referencedUsers = [
      ...new Set(
        [
          request.cardOwner,
          holder.userId,
          request.options?.smsNotifications?.userId,
          request.delivery?.courier?.recipient?.userId,
        ].filter((id): id is string => typeof id === 'string'),
      ),
    ];
    const branchId = request.delivery?.toBranch?.id;

    // Independent look-ups go out together.
    const [userResults, branchResult] = await Promise.all([
      Promise.all(referencedUsers.map((id) => this.users.getUser(id))),
      branchId ? this.branches.getBranch(branchId) : Promise.resolve(null),
    ]);
    for (const result of [...userResults, branchResult])
      if (result) this.throwIfUnavailable(result);

    let failureReason: string | null = null;
    const missingUser = referencedUsers.find((_, i) => userResults[i].kind === 'not-found');
    if (missingUser) failureReason = `User ${missingUser} does not exist`;
    else if (branchResult?.kind === 'not-found')
      failureReason = `Branch ${branchId} does not exist`;

    let holderUserId = holder.userId ?? null;
    const cardHolder: Record<string, unknown> = { ...holder };
    if (!failureReason && holder.user) {
      const created = await this.users.createUser(holder.user);
      this.throwIfUnavailable(created);
      if (created.kind === 'ok') {
        holderUserId = created.value.id;
        cardHolder.userId = created.value.id;
      } else {
        failureReason = `The card holder could not be created in the user service: ${created.kind === 'conflict' ? created.message : 'rejected'}`;
      }
    }

    const status: CardIssueStatus = failureReason ? 'FAILED' : 'CREATED';
    const now = this.clock.now();
    const businessDay = requestIdBusinessDay(now, this.timeZone);
    let requestId: string;
    try {
      requestId = await this.repository.insert({
        businessDay,
        status,
        failureReason,
        cardOwner: request.cardOwner,
        holderUserId,
        formFactor: request.formFactor,
        cardHolder,
        options: request.options ?? null,
        delivery: request.delivery ?? null,
        now,
        idempotencyKey,
      });
    } catch (error) {
      if (isSequenceExhausted(error)) throw new RequestIdsExhaustedError(businessDay);
      throw error;
    }
    this.outbox.kick();
    return { requestId, status, statusCode: STATUS_CODES[status], failureReason };
  }

  private throwIfUnavailable(result: GatewayResult<unknown>): void {
    if (result.kind === 'unavailable') {
      this.logger.warn(
        { service: result.service, reason: result.reason },
        'Downstream service unavailable',
      );
      throw new DownstreamUnavailableError(result.service);
    }
  }

  async get(requestId: string): Promise<CardIssueRecordDto> {
    const found = await this.repository.findById(requestId);
    if (!found) throw new CardIssueNotFoundError(requestId);
    return this.toRecord(found);
  }

  async listByClient(userId: string, limit: number, offset: number): Promise<CardIssueRecordDto[]> {
    const found = await this.repository.findByClient(userId, limit, offset);
    return found.map((item) => this.toRecord(item));
  }

  /**
   * Any status to any status (spec part 3), except READY only for VIRTUAL and
   * PLASTIC_READY only for PLASTIC. Setting the current status again changes nothing.
   */
  async updateStatus(requestId: string, status: CardIssueStatus): Promise<CardIssueResponseDto> {
    const updated = await this.repository.transaction(async (manager) => {
      const request = await this.repository.lockForUpdate(manager, requestId);
      if (!request) throw new CardIssueNotFoundError(requestId);
      if (!isStatusAllowedFor(status, request.formFactor))
        throw new StatusNotAllowedError(status, request.formFactor);
      if (request.status === status) return request;
      const failureReason =
        status === 'FAILED'
          ? (request.failureReason ?? 'Status set to FAILED through the API')
          : null;
      return this.repository.applyStatusChange(
        manager,
        request,
        status,
        failureReason,
        'api',
        this.clock.now(),
      );
    });
    this.outbox.kick();
    return {
      requestId: updated.requestId,
      status: updated.status,
      statusCode: STATUS_CODES[updated.status],
      failureReason: updated.failureReason,
    };
  }

  private toRecord(request: CardIssueWithHistory): CardIssueRecordDto {
    const at = (epochMs: number) => formatLocalDateTime(new Date(epochMs), this.timeZone);
    return {
      requestId: request.requestId,
      status: request.status,
      statusCode: STATUS_CODES[request.status],
      failureReason: request.failureReason,
      cardOwner: request.cardOwner,
      formFactor: request.formFactor,
      cardHolder: request.cardHolder,
      options: request.options,
      delivery: request.delivery,
      createdAt: at(request.createdAt),
      updatedAt: at(request.updatedAt),
      history: request.history.map((change) => ({
        status: change.status,
        statusCode: STATUS_CODES[change.status],
        at: at(change.at),
        source: change.source,
      })),
    };
  }
}
