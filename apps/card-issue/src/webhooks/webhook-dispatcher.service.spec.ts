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

function delivery(id: string, subscriptionId = 'sub-a'): ClaimedWebhookDelivery {
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
  };
}

/** A dispatcher over fakes: claims come from `due`, every POST waits until the test answers it. */
function dispatcher(env: Partial<CardIssueEnvironment>) {
  const due: ClaimedWebhookDelivery[] = [];
  const claims: { limit: number; busy: Map<string, number> }[] = [];
  const posts: { post: WebhookPost; answer: () => void }[] = [];
  const repository = {
    claim: (options: { limit: number; busy: ReadonlyMap<string, number> }) => {
      claims.push({ limit: options.limit, busy: new Map(options.busy) });
      return Promise.resolve(due.splice(0, options.limit));
    },
    markDelivered: () => Promise.resolve(),
    settleFailure: () => Promise.resolve('PENDING'),
  } as unknown as WebhookDeliveriesRepository;
  const sender = {
    post: (post: WebhookPost) =>
      new Promise<WebhookAttemptResult>((resolve) =>
        posts.push({
          post,
          answer: () =>
            resolve({
              at: new Date(),
              statusCode: 204,
              latencyMs: 1,
              error: null,
              responsePrefix: '',
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
      ...env,
    } as CardIssueEnvironment,
    metrics,
    new SchedulerRegistry(),
  );
  return { service, due, claims, posts };
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

  it('never waits for a batch, and tells the claim which subscriptions are at their cap', async () => {
    const { service, due, claims, posts } = dispatcher({ WEBHOOK_CONCURRENCY: 4 });
    due.push(delivery('1', 'slow'), delivery('2', 'slow'));
    await service.pump();
    expect(posts).toHaveLength(2);
    due.push(delivery('3', 'fast'));
    await service.pump(); // the slow receiver's two POSTs are still out
    expect(posts).toHaveLength(3);
    expect(claims.at(-2)).toEqual({ limit: 2, busy: new Map([['slow', 0]]) });
    for (const post of posts) post.answer();
    await service.settled();
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
