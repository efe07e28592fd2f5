import { Test } from '@nestjs/testing';
import { BUSINESS_TIME_ZONE, Clock, FixedClock } from '@bank/shared/calendar';
import { runWithRequestId } from '@bank/shared/tracing';
import { BranchesClient, DownstreamBranch } from '../integrations/branches/branches.client';
import { DownstreamService, GatewayResult } from '../integrations/gateway-result.model';
import { DownstreamUser, NewUser, UsersClient } from '../integrations/users/users.client';
import { OutboxService } from '../outbox/outbox.service';
import { WebhookDispatcherService } from '../webhooks/webhook-dispatcher.service';
import { CardIssuesRepository, NewCardIssueRow } from './card-issues.repository';
import { DownstreamBudget } from '../integrations/gateway-http.client';
import { CardIssuesService } from './card-issues.service';
import { DownstreamUnavailableError } from './card-issues.errors';
import { CardIssueRequestDto } from './dto/card-issue-request.dto';
import { CardIssueResponseDto } from './dto/card-issue-response.dto';
import { IdempotencyService } from './idempotency.service';
import { EntityManager } from 'typeorm';
import { IdempotencyClaim, IdempotencyLease, StoredResponse } from '@bank/shared/idempotency';
import { IdempotencyKeyInProgressError, IdempotencyKeyReusedError } from './card-issues.errors';

const OWNER = 'X00001';
const HOLDER = 'X00002';
const SMS_USER = 'X00003';
const RECIPIENT = 'X00004';
const BRANCH = '0001';
const NEW_HOLDER = 'XNEW01';

/** The user service: every user exists unless marked missing or unavailable. */
class FakeUsers implements Pick<UsersClient, 'getUser' | 'createUser'> {
  readonly missing = new Set<string>();
  readonly unavailable = new Set<string>();
  readonly looked: string[] = [];
  readonly created: NewUser[] = [];
  createResult: GatewayResult<DownstreamUser> = {
    kind: 'ok',
    value: { id: NEW_HOLDER } as DownstreamUser,
  };

  getUser(id: string): Promise<GatewayResult<DownstreamUser>> {
    this.looked.push(id);
    if (this.unavailable.has(id)) return Promise.resolve(outage('user service'));
    if (this.missing.has(id)) return Promise.resolve({ kind: 'not-found' });
    return Promise.resolve({ kind: 'ok', value: { id } as DownstreamUser });
  }

  createUser(user: NewUser): Promise<GatewayResult<DownstreamUser>> {
    this.created.push(user);
    return Promise.resolve(this.createResult);
  }
}

class FakeBranches implements Pick<BranchesClient, 'getBranch'> {
  result: GatewayResult<DownstreamBranch> = {
    kind: 'ok',
    value: { id: BRANCH, name: 'Main', address: 'Moscow' },
  };

  getBranch(): Promise<GatewayResult<DownstreamBranch>> {
    return Promise.resolve(this.result);
  }
}

class FakeRepository implements Pick<
  CardIssuesRepository,
  'insert' | 'transaction' | 'claimHolderCreation' | 'ping'
> {
  readonly rows: NewCardIssueRow[] = [];
  /** Keys of the holder creations claimed (the sweeper's side is tested end to end). */
  readonly claimedHolders: string[] = [];
  /** Rows inserted inside transaction(), as the key's response must commit with them. */
  inTransaction = 0;

  insert(row: NewCardIssueRow, manager?: EntityManager): Promise<string> {
    this.rows.push(row);
    if (manager) this.inTransaction++;
    return Promise.resolve(`RCARDB23112026${String(this.rows.length).padStart(6, '0')}`);
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return work({} as EntityManager);
  }

  /** The database is reachable unless a test says otherwise. */
  databaseDown: Error | null = null;

  ping(): Promise<void> {
    return this.databaseDown ? Promise.reject(this.databaseDown) : Promise.resolve();
  }

  claimHolderCreation(key: string): Promise<boolean> {
    this.claimedHolders.push(key);
    return Promise.resolve(true);
  }
}

/** The lease of a held key: records what completed or released it. */
class FakeLease {
  completed: StoredResponse | null = null;
  released = false;

  complete(_: unknown, response: StoredResponse): Promise<void> {
    this.completed = response;
    return Promise.resolve();
  }

  release(): Promise<void> {
    this.released = true;
    return Promise.resolve();
  }
}

class FakeIdempotency implements Pick<IdempotencyService, 'claim'> {
  next: IdempotencyClaim | null = null;
  readonly leases: FakeLease[] = [];

  claim(): Promise<IdempotencyClaim> {
    if (this.next) return Promise.resolve(this.next);
    const lease = new FakeLease();
    this.leases.push(lease);
    return Promise.resolve({ kind: 'held', lease: lease as unknown as IdempotencyLease });
  }
}

const outage = (service: DownstreamService) =>
  ({ kind: 'unavailable', service, reason: 'connection refused' }) as const;

const thirdParty = { firstName: 'MARIA' } as NewUser;

/**
 * A body that names a user in every place the service looks (owner, holder, SMS, courier
 * recipient) and a branch. Field validation would not let a courier and a branch through
 * together; the service does not care, which lets one body pin the whole order.
 */
function everyReference(): CardIssueRequestDto {
  return {
    request: {
      cardOwner: OWNER,
      formFactor: 'PLASTIC',
      cardHolder: { nameless: false, userId: HOLDER, embossedName: 'IVAN PETROV' },
      options: { smsNotifications: { userId: SMS_USER } },
      delivery: { courier: { recipient: { userId: RECIPIENT } }, toBranch: { id: BRANCH } },
    },
  } as unknown as CardIssueRequestDto;
}

function forThirdParty(): CardIssueRequestDto {
  return {
    request: {
      cardOwner: OWNER,
      formFactor: 'VIRTUAL',
      cardHolder: { nameless: false, user: thirdParty },
    },
  } as unknown as CardIssueRequestDto;
}

describe('CardIssuesService.create', () => {
  /** create() with its body text parsed. */
  const created = async (dto: CardIssueRequestDto, key?: string) => {
    const { body, replayed } = await service.create(dto, key);
    return { response: JSON.parse(body) as CardIssueResponseDto, replayed };
  };
  let service: CardIssuesService;
  let users: FakeUsers;
  let branches: FakeBranches;
  let repository: FakeRepository;
  let idempotency: FakeIdempotency;
  let kicks: number;
  /** Whether the code runs inside DownstreamBudget.run, and whether a kick ever did. */
  let inBudget: boolean;
  let kickedInBudget: boolean;

  beforeEach(async () => {
    users = new FakeUsers();
    branches = new FakeBranches();
    repository = new FakeRepository();
    idempotency = new FakeIdempotency();
    kicks = 0;
    inBudget = false;
    kickedInBudget = false;
    const module = await Test.createTestingModule({
      providers: [
        CardIssuesService,
        { provide: CardIssuesRepository, useValue: repository },
        { provide: IdempotencyService, useValue: idempotency },
        { provide: UsersClient, useValue: users },
        { provide: BranchesClient, useValue: branches },
        {
          provide: OutboxService,
          useValue: { kick: () => ((kickedInBudget ||= inBudget), kicks++) },
        },
        { provide: WebhookDispatcherService, useValue: { kick: () => undefined } },
        {
          provide: DownstreamBudget,
          useValue: {
            run: async <T>(work: () => Promise<T>) => {
              inBudget = true;
              try {
                return await work();
              } finally {
                inBudget = false;
              }
            },
          },
        },
        { provide: Clock, useValue: new FixedClock('2026-11-23T09:00:00.000Z') },
        { provide: BUSINESS_TIME_ZONE, useValue: 'Europe/Moscow' },
      ],
    }).compile();
    service = module.get(CardIssuesService);
  });

  const failureOf = async (dto: CardIssueRequestDto) => {
    const { response } = await created(dto);
    return response.failureReason;
  };

  it('stores a CREATED request when every reference exists, and kicks the outbox', async () => {
    const { response, replayed } = await created(everyReference());

    expect(response).toEqual({
      requestId: 'RCARDB23112026000001',
      status: 'CREATED',
      statusCode: 'STSCI01',
      failureReason: null,
    });
    expect(replayed).toBe(false);
    expect(repository.rows[0]).toMatchObject({
      businessDay: '23112026',
      status: 'CREATED',
      failureReason: null,
      cardOwner: OWNER,
      holderUserId: HOLDER,
    });
    expect(kicks).toBe(1);
    // The delivery the kick starts must not inherit this request's downstream deadline.
    expect(kickedInBudget).toBe(false);
  });

  it('hands the repository the trace context of the request it serves (none outside one)', async () => {
    await runWithRequestId('rid-create-1', () => service.create(everyReference()));
    await service.create(everyReference());
    expect(repository.rows.map((row) => row.traceContext)).toEqual([
      { 'x-request-id': 'rid-create-1' },
      null,
    ]);
  });

  it('looks every referenced user up once', async () => {
    const dto = everyReference();
    dto.request.cardHolder.userId = OWNER;
    await service.create(dto);
    expect(users.looked).toEqual([OWNER, SMS_USER, RECIPIENT]);
  });

  it.each([
    [[OWNER, HOLDER, SMS_USER, RECIPIENT], `User ${OWNER} does not exist`],
    [[HOLDER, SMS_USER, RECIPIENT], `User ${HOLDER} does not exist`],
    [[SMS_USER, RECIPIENT], `User ${SMS_USER} does not exist`],
    [[RECIPIENT], `User ${RECIPIENT} does not exist`],
  ])(
    'reports the first missing user in the order owner, holder, SMS, recipient (missing %j), before a missing branch',
    async (missing, reason) => {
      missing.forEach((id) => users.missing.add(id));
      branches.result = { kind: 'not-found' };
      const { response } = await created(everyReference());
      expect(response).toMatchObject({ status: 'FAILED', statusCode: 'STSCI05' });
      expect(response.failureReason).toBe(reason);
      expect(repository.rows[0]).toMatchObject({ status: 'FAILED', failureReason: reason });
    },
  );

  it('reports a missing branch when every user exists', async () => {
    branches.result = { kind: 'not-found' };
    expect(await failureOf(everyReference())).toBe(`Branch ${BRANCH} does not exist`);
  });

  it('stores nothing when a service is unavailable, even if a user is missing', async () => {
    users.missing.add(OWNER);
    branches.result = outage('branch service');
    await expect(service.create(everyReference())).rejects.toEqual(
      new DownstreamUnavailableError('branch service'),
    );
    expect(repository.rows).toEqual([]);
    expect(kicks).toBe(0);
  });

  it('names the database, not the service, when its own database is out of reach too', async () => {
    users.unavailable.add(OWNER);
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
    });
    repository.databaseDown = refused;
    await expect(service.create(everyReference())).rejects.toBe(refused);
    repository.databaseDown = null;
    await expect(service.create(everyReference())).rejects.toBeInstanceOf(
      DownstreamUnavailableError,
    );
    expect(repository.rows).toEqual([]);
  });

  describe('a third-party holder', () => {
    it('is created when nothing failed, and the request stores its new id', async () => {
      const { response } = await created(forThirdParty());
      expect(response.status).toBe('CREATED');
      expect(users.created).toEqual([thirdParty]);
      expect(repository.rows[0].holderUserId).toBe(NEW_HOLDER);
      // Claimed before the create, and released by the same insert that stores the request.
      expect(repository.claimedHolders).toEqual([repository.rows[0].holderCreationKey]);
      expect(repository.rows[0].holderCreationKey).toMatch(/^card-issue-holder-[0-9a-f]{64}$/);
      expect(repository.rows[0].cardHolder).toEqual({
        nameless: false,
        user: thirdParty,
        userId: NEW_HOLDER,
      });
    });

    it('is not created when a reference is missing', async () => {
      users.missing.add(OWNER);
      expect(await failureOf(forThirdParty())).toBe(`User ${OWNER} does not exist`);
      expect(users.created).toEqual([]);
      expect(repository.claimedHolders).toEqual([]);
      expect(repository.rows[0].holderUserId).toBeNull();
      expect(repository.rows[0].holderCreationKey).toBeNull();
    });

    it('fails the request as a conflict, without the passport, when the user service refuses the holder', async () => {
      users.createResult = { kind: 'conflict', message: 'Passport 4510 123456 is taken' };
      expect(await failureOf(forThirdParty())).toBe(
        'The card holder could not be created in the user service: it conflicts with an existing user',
      );
      expect(repository.rows[0]).toMatchObject({ status: 'FAILED', holderUserId: null });
      // The refused creation is settled with the FAILED request, so nothing is left to sweep.
      expect(repository.rows[0].holderCreationKey).toBe(repository.claimedHolders[0]);
      expect(repository.rows[0].cardHolder).not.toHaveProperty('userId');
    });

    it('fails the request as rejected for any other refusal', async () => {
      users.createResult = { kind: 'not-found' };
      expect(await failureOf(forThirdParty())).toBe(
        'The card holder could not be created in the user service: rejected',
      );
    });

    it('stores nothing when the user service is unavailable for the create', async () => {
      users.createResult = outage('user service');
      await expect(service.create(forThirdParty())).rejects.toBeInstanceOf(
        DownstreamUnavailableError,
      );
      expect(repository.rows).toEqual([]);
    });
  });

  describe('with an Idempotency-Key', () => {
    it('replays a stored response, as its exact text, without storing anything', async () => {
      const body =
        '{"requestId":"RCARDB23112026000042","status":"CREATED","statusCode":"STSCI01","failureReason":null}';
      idempotency.next = { kind: 'replay', response: { status: 201, body } };
      expect(await service.create(everyReference(), 'key-1')).toEqual({ body, replayed: true });
      expect(repository.rows).toEqual([]);
    });

    it('refuses a key used with another body, or still in progress (with its Retry-After)', async () => {
      idempotency.next = { kind: 'reused' };
      await expect(service.create(everyReference(), 'k')).rejects.toBeInstanceOf(
        IdempotencyKeyReusedError,
      );
      idempotency.next = { kind: 'in-progress', retryAfterSeconds: 4 };
      await expect(service.create(everyReference(), 'k')).rejects.toMatchObject({
        constructor: IdempotencyKeyInProgressError,
        retryAfterSeconds: 4,
      });
      expect(repository.rows).toEqual([]);
    });

    it('stores the response text with the request in one transaction, and releases the key when the request fails', async () => {
      const { body } = await service.create(everyReference(), 'key-1');
      expect(repository.inTransaction).toBe(1);
      expect(idempotency.leases[0].completed).toEqual({ status: 201, body });
      expect(idempotency.leases[0].released).toBe(false);

      users.unavailable.add(OWNER);
      await expect(service.create(everyReference(), 'key-2')).rejects.toBeInstanceOf(
        DownstreamUnavailableError,
      );
      expect(idempotency.leases[1].released).toBe(true);
    });
  });
});
