import { Test } from '@nestjs/testing';
import { Clock, FixedClock } from '@bank/shared/calendar';
import { ENVIRONMENT } from '@bank/shared/nest';
import { CardIssuesRepository, StoredIdempotencyKey } from './card-issues.repository';
import { IdempotencyKeyInProgressError, IdempotencyKeyReusedError } from './card-issues.errors';
import { CardIssueResponseDto } from './dto/card-issue-response.dto';
import { hashBody } from './idempotency.hash';
import { IdempotencyService } from './idempotency.service';

const BODY = { request: { cardOwner: 'X1A2B3' } };
const RESPONSE: CardIssueResponseDto = {
  requestId: 'RCARDB23112026000001',
  status: 'CREATED',
  statusCode: 'STSCI01',
  failureReason: null,
};

/** The key table: `held` is the row another request wrote, if any. */
class FakeKeys implements Pick<
  CardIssuesRepository,
  | 'claimIdempotencyKey'
  | 'findIdempotencyKey'
  | 'releaseIdempotencyKey'
  | 'deleteIdempotencyKeysBefore'
> {
  held: StoredIdempotencyKey | null = null;
  readonly claims: { key: string; requestHash: string; now: Date }[] = [];
  finds = 0;
  readonly released: string[] = [];
  readonly cutoffs: Date[] = [];

  claimIdempotencyKey(key: string, requestHash: string, now: Date): Promise<boolean> {
    this.claims.push({ key, requestHash, now });
    return Promise.resolve(this.held === null);
  }

  findIdempotencyKey(): Promise<StoredIdempotencyKey | null> {
    this.finds++;
    return Promise.resolve(this.held);
  }

  releaseIdempotencyKey(key: string): Promise<void> {
    this.released.push(key);
    return Promise.resolve();
  }

  deleteIdempotencyKeysBefore(cutoff: Date): Promise<number> {
    this.cutoffs.push(cutoff);
    return Promise.resolve(3);
  }
}

describe('IdempotencyService', () => {
  let service: IdempotencyService;
  let keys: FakeKeys;
  const clock = new FixedClock('2026-11-23T09:00:00.000Z');

  beforeEach(async () => {
    keys = new FakeKeys();
    const module = await Test.createTestingModule({
      providers: [
        IdempotencyService,
        { provide: CardIssuesRepository, useValue: keys },
        { provide: Clock, useValue: clock },
        { provide: ENVIRONMENT, useValue: { IDEMPOTENCY_KEY_TTL_HOURS: 24 } },
      ],
    }).compile();
    service = module.get(IdempotencyService);
  });

  afterEach(() => jest.useRealTimers());

  it('takes a free key for the canonical hash of the body', async () => {
    expect(await service.claim('k', BODY)).toBeNull();
    expect(keys.claims).toEqual([{ key: 'k', requestHash: hashBody(BODY), now: clock.now() }]);
  });

  it('replays the stored response of the same body', async () => {
    keys.held = { requestHash: hashBody(BODY), response: RESPONSE };
    expect(await service.claim('k', BODY)).toEqual(RESPONSE);
  });

  it('refuses the key with another body, finished or not', async () => {
    keys.held = { requestHash: hashBody({ other: true }), response: null };
    await expect(service.claim('k', BODY)).rejects.toBeInstanceOf(IdempotencyKeyReusedError);
  });

  it('waits, polling every 25 ms, while the first request runs, then replays its response', async () => {
    jest.useFakeTimers({ now: 0 });
    keys.held = { requestHash: hashBody(BODY), response: null };
    const claimed = service.claim('k', BODY);
    await jest.advanceTimersByTimeAsync(0);
    expect(keys.finds).toBe(1);
    await jest.advanceTimersByTimeAsync(24);
    expect(keys.finds).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(keys.finds).toBe(2);

    keys.held = { requestHash: hashBody(BODY), response: RESPONSE };
    await jest.advanceTimersByTimeAsync(25);
    await expect(claimed).resolves.toEqual(RESPONSE);
  });

  it('takes the key when the first request gave it back', async () => {
    jest.useFakeTimers({ now: 0 });
    keys.held = { requestHash: hashBody(BODY), response: null };
    const claimed = service.claim('k', BODY);
    await jest.advanceTimersByTimeAsync(0);
    keys.held = null; // released: find sees nothing, the next claim succeeds
    await jest.advanceTimersByTimeAsync(25);
    await expect(claimed).resolves.toBeNull();
  });

  it('gives up with 409 in progress after 15 s, not before', async () => {
    jest.useFakeTimers({ now: 0 });
    keys.held = { requestHash: hashBody(BODY), response: null };
    const claimed = service.claim('k', BODY);
    let outcome: unknown = 'pending';
    claimed.catch((error: unknown) => (outcome = error));
    await jest.advanceTimersByTimeAsync(14_990);
    expect(outcome).toBe('pending');
    await jest.advanceTimersByTimeAsync(100);
    expect(outcome).toBeInstanceOf(IdempotencyKeyInProgressError);
  });

  it('releases a key', async () => {
    await service.release('k');
    expect(keys.released).toEqual(['k']);
  });

  it('purges the keys older than the retention', async () => {
    expect(await service.purgeExpired()).toBe(3);
    expect(keys.cutoffs).toEqual([new Date('2026-11-22T09:00:00.000Z')]);
  });
});
