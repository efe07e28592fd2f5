import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { IdempotencyLease, KeyConflicts, runIdempotent } from '@bank/shared/idempotency';
import { BUSINESS_TIME_ZONE, Clock } from '@bank/shared/calendar';
import { requestIdBusinessDay } from '@bank/shared/identifiers';
import { correlationHeaders } from '@bank/shared/tracing';
import { BranchesClient, DownstreamBranch } from '../integrations/branches/branches.client';
import { DownstreamBudget } from '../integrations/gateway-http.client';
import { GatewayResult } from '../integrations/gateway-result.model';
import { DownstreamUser, UsersClient } from '../integrations/users/users.client';
import { CreateUserDto } from '../contracts/user.dto';
import { OutboxService } from '../outbox/outbox.service';
import { WebhookDispatcherService } from '../webhooks/webhook-dispatcher.service';
import { CardIssueStatus, isStatusAllowedFor } from './card-issue-status.model';
import { toCardIssueRecord, toCardIssueResponse } from './card-issues.mapper';
import {
  CardIssuesRepository,
  isSequenceExhausted,
  NewCardIssueRow,
  TraceContextOfChange,
} from './card-issues.repository';
import {
  CardIssueNotFoundError,
  DownstreamUnavailableError,
  HolderCleanupInProgressError,
  IdempotencyKeyInProgressError,
  IdempotencyKeyReusedError,
  RequestIdsExhaustedError,
  StatusNotAllowedError,
} from './card-issues.errors';
import {
  CardHolderDto,
  CardIssueRequestBodyDto,
  CardIssueRequestDto,
} from './dto/card-issue-request.dto';
import { CardIssueRecordDto, CardIssueResponseDto } from './dto/card-issue-response.dto';
import { IdempotencyService } from './idempotency.service';

export interface CreateResult {
  /** The response body (a CardIssueResponseDto) as JSON text: sent, and replayed, as is. */
  body: string;
  /** True when an Idempotency-Key replayed an earlier response. */
  replayed: boolean;
}

/** The card holder as stored: cardHolder as requested, with the id of a third party created for it. */
interface StoredHolder {
  holderUserId: string | null;
  cardHolder: Record<string, unknown>;
}

/** How this service refuses an Idempotency-Key (runIdempotent). */
const KEY_CONFLICTS: KeyConflicts = {
  reused: () => new IdempotencyKeyReusedError(),
  inProgress: (retryAfterSeconds) => new IdempotencyKeyInProgressError(retryAfterSeconds),
};

@Injectable()
export class CardIssuesService {
  constructor(
    private readonly repository: CardIssuesRepository,
    private readonly idempotency: IdempotencyService,
    private readonly users: UsersClient,
    private readonly branches: BranchesClient,
    private readonly outbox: OutboxService,
    private readonly webhooks: WebhookDispatcherService,
    private readonly budget: DownstreamBudget,
    private readonly clock: Clock,
    @Inject(BUSINESS_TIME_ZONE) private readonly timeZone: string,
  ) {}

  async create(dto: CardIssueRequestDto, idempotencyKey?: string): Promise<CreateResult> {
    if (!idempotencyKey) return { body: await this.run(dto, null, null), replayed: false };
    return runIdempotent(this.idempotency, idempotencyKey, dto, KEY_CONFLICTS, (lease) =>
      this.run(dto, idempotencyKey, lease),
    );
  }

  /**
   * One downstream time budget for everything this request asks of other services; the
   * outbox and the webhooks are kicked outside it, so their deliveries do not inherit this
   * request's deadline.
   * A downstream service that is unavailable while our own database is out of reach too is
   * reported as the database outage it most likely is (the reference services share it), not
   * as the service's: the database's error goes instead.
   */
  private async run(
    dto: CardIssueRequestDto,
    idempotencyKey: string | null,
    lease: IdempotencyLease | null,
  ): Promise<string> {
    try {
      const body = await this.budget.run(() => this.process(dto, idempotencyKey, lease));
      this.outbox.kick();
      this.webhooks.kick();
      return body;
    } catch (error) {
      if (error instanceof DownstreamUnavailableError) await this.repository.ping();
      throw error;
    }
  }

  /**
   * Checks the referenced users and branch, creates a third-party holder, stores the request.
   * A missing user or branch, or a holder the user service refused, makes a FAILED request;
   * an unavailable service stores nothing.
   */
  private async process(
    dto: CardIssueRequestDto,
    idempotencyKey: string | null,
    lease: IdempotencyLease | null,
  ): Promise<string> {
    const request = dto.request;
    let failureReason = await this.failureReason(request);
    let holder: StoredHolder = {
      holderUserId: request.cardHolder.userId ?? null,
      cardHolder: { ...request.cardHolder },
    };
    // A third party is created only for a request that will be stored as CREATED.
    const thirdParty = request.cardHolder.user;
    let creationKey: string | null = null;
    if (!failureReason && thirdParty) {
      creationKey = holderCreationKey(request.cardOwner, thirdParty, idempotencyKey);
      const created = await this.createThirdPartyHolder(
        request.cardHolder,
        thirdParty,
        creationKey,
      );
      if ('failureReason' in created) failureReason = created.failureReason;
      else holder = created;
    }
    const status: CardIssueStatus = failureReason ? 'FAILED' : 'CREATED';
    return this.store(request, { ...holder, creationKey }, status, failureReason, lease);
  }

  /**
   * Why the request fails, or null: the first missing user in the order of referencedUsers,
   * else a missing branch. Every look-up goes out at once; any unavailable service fails the
   * call (DownstreamUnavailableError) before a missing user or branch counts.
   */
  private async failureReason(request: CardIssueRequestBodyDto): Promise<string | null> {
    const userIds = referencedUsers(request);
    const branchId = request.delivery?.toBranch?.id;
    const [userResults, branchResult] = await Promise.all([
      Promise.all(userIds.map((id) => this.users.getUser(id))),
      branchId ? this.branches.getBranch(branchId) : Promise.resolve(null),
    ]);
    const results: GatewayResult<DownstreamUser | DownstreamBranch>[] = [...userResults];
    if (branchResult) results.push(branchResult);
    for (const result of results) this.throwIfUnavailable(result);

    const missingUser = userIds.find((_, i) => userResults[i].kind === 'not-found');
    if (missingUser) return `User ${missingUser} does not exist`;
    if (branchResult?.kind === 'not-found') return `Branch ${branchId} does not exist`;
    return null;
  }

  /**
   * Creates the third party (cardHolder.user) in the user service; the holder then carries its
   * new id. The key makes a retry of this request find the user an earlier attempt created
   * (docs/decisions/0008-third-party-holder-created-idempotently.md: the third-party holder after
   * a timeout).
   */
  private async createThirdPartyHolder(
    holder: CardHolderDto,
    user: CreateUserDto,
    key: string,
  ): Promise<StoredHolder | { failureReason: string }> {
    // Noted first, so a user whose request is never stored is found and deleted (HolderSweeper).
    if (!(await this.repository.claimHolderCreation(key, user))) {
      throw new HolderCleanupInProgressError();
    }
    const created = await this.users.createUser(user, key);
    this.throwIfUnavailable(created);
    if (created.kind === 'ok') {
      return {
        holderUserId: created.value.id,
        cardHolder: { ...holder, userId: created.value.id },
      };
    }
    // Not the user service's own message: it names the passport, which would then be stored,
    // read back and sent in webhooks, and would tell the caller whom the bank knows.
    return {
      failureReason: `The card holder could not be created in the user service: ${created.kind === 'conflict' ? 'it conflicts with an existing user' : 'rejected'}`,
    };
  }

  /**
   * Stores the request (with its history and outbox message) and, under an Idempotency-Key,
   * the response in the same transaction; returns the response body as JSON text.
   */
  private async store(
    request: CardIssueRequestBodyDto,
    holder: StoredHolder & { creationKey: string | null },
    status: CardIssueStatus,
    failureReason: string | null,
    lease: IdempotencyLease | null,
  ): Promise<string> {
    const now = this.clock.now();
    const businessDay = requestIdBusinessDay(now, this.timeZone);
    const row: NewCardIssueRow = {
      businessDay,
      status,
      failureReason,
      cardOwner: request.cardOwner,
      holderUserId: holder.holderUserId,
      holderCreationKey: holder.creationKey,
      formFactor: request.formFactor,
      cardHolder: holder.cardHolder,
      options: request.options ?? null,
      delivery: request.delivery ?? null,
      now,
      traceContext: traceContextOfChange(),
    };
    const bodyOf = (requestId: string) =>
      JSON.stringify(toCardIssueResponse({ requestId, status, failureReason }));
    try {
      if (!lease) return bodyOf(await this.repository.insert(row));
      return await this.repository.transaction(async (manager) => {
        const body = bodyOf(await this.repository.insert(row, manager));
        await lease.complete(manager, { status: 201, body });
        return body;
      });
    } catch (error) {
      if (isSequenceExhausted(error)) throw new RequestIdsExhaustedError(businessDay);
      throw error;
    }
  }

  private throwIfUnavailable(result: GatewayResult<unknown>): void {
    // GatewayHttp has logged the failure (rate-limited); here it only becomes the 503.
    if (result.kind === 'unavailable') {
      throw new DownstreamUnavailableError(result.service, result.retryAfterMs);
    }
  }

  async get(requestId: string): Promise<CardIssueRecordDto> {
    const found = await this.repository.findById(requestId);
    if (!found) throw new CardIssueNotFoundError(requestId);
    return toCardIssueRecord(found, this.timeZone);
  }

  async listByClient(userId: string, limit: number, offset: number): Promise<CardIssueRecordDto[]> {
    const found = await this.repository.findByClient(userId, limit, offset);
    return found.map((item) => toCardIssueRecord(item, this.timeZone));
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
        traceContextOfChange(),
      );
    });
    this.outbox.kick();
    this.webhooks.kick();
    return toCardIssueResponse(updated);
  }
}

/**
 * The trace context and request id of the request being served, for the change it stores (null
 * outside a request with tracing off): the change's outbox message and webhook events keep them,
 * so their deliveries continue this request's trace under its id.
 */
function traceContextOfChange(): TraceContextOfChange {
  const headers = correlationHeaders();
  return Object.keys(headers).length ? headers : null;
}

/**
 * The Idempotency-Key sent to the user service with the creation of a third-party holder: a
 * hash of the card request's own key (none: null), its owner and the holder's data, so a retry
 * of the same request creates no second user and finds the first.
 */
export function holderCreationKey(
  cardOwner: string,
  holder: CreateUserDto,
  idempotencyKey: string | null,
): string {
  const source = JSON.stringify([idempotencyKey, cardOwner, holder]);
  return `card-issue-holder-${createHash('sha256').update(source).digest('hex')}`;
}

/**
 * The users a request names, each once, in the order their absence is reported: card owner,
 * holder, SMS notifications user, courier recipient.
 */
function referencedUsers(request: CardIssueRequestBodyDto): string[] {
  const ids = [
    request.cardOwner,
    request.cardHolder.userId,
    request.options?.smsNotifications?.userId,
    request.delivery?.courier?.recipient?.userId,
  ];
  return [...new Set(ids.filter((id): id is string => typeof id === 'string'))];
}
