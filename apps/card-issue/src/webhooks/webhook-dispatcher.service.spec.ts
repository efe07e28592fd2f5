import { Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { eventually } from '@bank/shared/testing';
import type { CardIssueEnvironment } from '../config/environment.config';
import type {
  ClaimedWebhookDelivery,
  WebhookAttemptResult,
  WebhookDeliveriesRepository,
} from './webhook-deliveries.repository';
import { WebhookDispatcherService } from './webhook-dispatcher.service';
import type { WebhookPost, WebhookSender } from './webhook-sender';
import type { WebhooksMetrics } from './webhooks.metrics';

function delivery(
  id: string,
  subscriptionId = 'sub-a',
  subscriptionFailures = 0,
): ClaimedWebhookDelivery {
  return {
    id,
    subscriptionId,
    eventId: `event-${id}`,
    eventType: 'card_issue.created',
    requestId: 'RCARDB25112026000001',
    sequence: 1,
    data: { status: 'CREATED', previousStatus: null, source: 'api', failureReason: null },
    occurredAt: Date.UTC(2026, 10, 25, 12),
    attempts: 1,
    traceContext: null,
    url: 'http://127.0.0.1:9/hook',
    secrets: ['whsec_dGVzdA=='],
    subscriptionFailures,
  };
}

const FAILED: Partial<WebhookAttemptResult> = { statusCode: 503, error: 'HTTP 503' };

/** A dispatcher over fakes: claims come from `due`, every POST waits until the test answers it. */
function dispatcher(env: Partial<CardIssueEnvironment>) {
  const due: ClaimedWebhookDelivery[] = [];
  const claims: {
    limit: number;
    inFlight: Map<string, number>;
    perSubscription: number;
    failingSlots: number;
  }[] = [];
  const posts: { post: WebhookPost; answer: (result?: Partial<WebhookAttemptResult>) => void }[] =
    [];
  const failures: { subscriptionId: string; delayMs: number; autoDisableHours: number }[] = [];
  const failureRecord = { consecutiveFailures: 1, failingSince: new Date(0), disabled: false };
  const repository = {
    claim: (options: {
      limit: number;
      inFlight: ReadonlyMap<string, number>;
      perSubscription: number;
      failingSlots: number;
    }) => {
      claims.push({ ...options, inFlight: new Map(options.inFlight) });
      return Promise.resolve(due.splice(0, options.limit));
    },
    markDelivered: () => Promise.resolve(),
    settleFailure: () => Promise.resolve('PENDING'),
    recordSubscriptionFailure: (
      claimed: ClaimedWebhookDelivery,
      _result: WebhookAttemptResult,
      delayMs: number,
      autoDisableHours: number,
    ) => {
      failures.push({ subscriptionId: claimed.subscriptionId, delayMs, autoDisableHours });
      return Promise.resolve({ ...failureRecord });
    },
  } as unknown as WebhookDeliveriesRepository;
  const sender = {
    post: (post: WebhookPost) =>
      new Promise<WebhookAttemptResult>((resolve) =>
        posts.push({
          post,
          answer: (result = {}) =>
            resolve({
              at: new Date(),
              statusCode: 204,
              latencyMs: 1,
              error: null,
              responsePrefix: '',
              ...result,
            }),
        }),
      ),
  } as unknown as WebhookSender;
  const metrics = {
    attempted: () => undefined,
    setInFlight: () => undefined,
  } as unknown as WebhooksMetrics;
  const service = new WebhookDispatcherService(
    repository,
    sender,
    {
      WEBHOOKS_ENABLED: true,
      WEBHOOK_CONCURRENCY: 16,
      WEBHOOK_SUBSCRIPTION_CONCURRENCY: 2,
      WEBHOOK_TIMEOUT_MS: 1_000,
      WEBHOOK_RETRY_BASE_MS: 10,
      WEBHOOK_RETRY_MAX_MS: 100,
      WEBHOOK_MAX_ATTEMPTS: 3,
      WEBHOOK_AUTO_DISABLE_HOURS: 24,
      ...env,
    } as CardIssueEnvironment,
    metrics,
    new SchedulerRegistry(),
  );
  return { service, due, claims, posts, failures, failureRecord };
}

describe('WebhookDispatcherService', () => {
  it('a round asked for while every slot is taken does not stop later rounds', async () => {
    const { service, due, posts } = dispatcher({ WEBHOOK_CONCURRENCY: 1 });
    due.push(delivery('1'));
    await service.pump();
    expect(posts).toHaveLength(1);
    await service.pump(); // every slot taken: nothing to claim now
    due.push(delivery('2'));
    posts[0].answer(); // the slot frees and asks for a round, which claims the next one
    await eventually(() => Promise.resolve(posts.length === 2), 2_000, 5);
    posts[1].answer();
    await service.settled();
    expect(service.inFlightCount).toBe(0);
  });

  it('never waits for a batch, and tells the claim what each subscription has in flight', async () => {
    const { service, due, claims, posts } = dispatcher({ WEBHOOK_CONCURRENCY: 4 });
    due.push(delivery('1', 'slow'), delivery('2', 'slow'));
    await service.pump();
    expect(posts).toHaveLength(2);
    due.push(delivery('3', 'fast'));
    await service.pump(); // the slow receiver's two POSTs are still out
    expect(posts).toHaveLength(3);
    expect(claims.at(-2)).toEqual({
      limit: 2,
      leaseMs: 3_000,
      inFlight: new Map([['slow', 2]]),
      perSubscription: 2,
      failingSlots: 2,
    });
    for (const post of posts) post.answer();
    await service.settled();
  });

  it('gives failing subscriptions together at most half the slots', async () => {
    const { service, due, claims, posts } = dispatcher({ WEBHOOK_CONCURRENCY: 5 });
    due.push(delivery('1', 'dead-a', 4), delivery('2', 'dead-b', 1), delivery('3', 'fine'));
    await service.pump();
    expect(posts).toHaveLength(3);
    expect(claims[0]).toMatchObject({ limit: 5, failingSlots: 2 });
    // Two deliveries of failing subscriptions out: none left for a third.
    expect(claims.at(-1)).toMatchObject({ limit: 2, failingSlots: 0 });
    posts[0].answer(FAILED);
    await eventually(() => Promise.resolve(claims.at(-1)!.failingSlots === 1), 2_000, 5);
    for (const post of posts.slice(1)) post.answer();
    await service.settled();
  });

  it('a failed attempt backs its subscription off, longer with each failure in a row, and a disabling is logged', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const { service, due, posts, failures, failureRecord } = dispatcher({
        WEBHOOK_RETRY_BASE_MS: 1_000,
        WEBHOOK_RETRY_MAX_MS: 1_000_000,
      });
      due.push(delivery('1', 'down', 9));
      await service.pump();
      posts[0].answer(FAILED);
      await service.settled();
      expect(failures).toEqual([
        { subscriptionId: 'down', delayMs: expect.any(Number), autoDisableHours: 24 },
      ]);
      // Full jitter below 1 s × 2^9: the tenth failure in a row.
      expect(failures[0].delayMs).toBeLessThan(512_000);
      expect(warn).not.toHaveBeenCalled();

      failureRecord.disabled = true;
      due.push(delivery('2', 'down', 10));
      await service.pump();
      posts[1].answer(FAILED);
      await service.settled();
      expect(warn).toHaveBeenCalledWith(
        expect.objectContaining({ subscriptionId: 'down', lastError: 'HTTP 503' }),
        expect.stringMatching(/^Webhook subscription disabled/),
      );
    } finally {
      warn.mockRestore();
    }
  });

  it('signs each POST and sends the event headers', async () => {
    const { service, due, posts } = dispatcher({});
    due.push(delivery('1'));
    await service.pump();
    const { headers, body } = posts[0].post;
    expect(headers).toMatchObject({
      'Content-Type': 'application/json',
      'User-Agent': 'card-issue-webhooks/1',
      'webhook-id': 'event-1',
      'webhook-timestamp': expect.stringMatching(/^\d+$/),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
    });
    expect(JSON.parse(body)).toMatchObject({
      id: 'event-1',
      type: 'card_issue.created',
      sequence: 1,
    });
    posts[0].answer();
    await service.settled();
  });
});
