import { AsyncLocalStorage } from 'node:async_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { eventually } from '@bank/shared/testing';
import { DeliveryQueue, DeliveryQueueOptions } from './delivery-queue';

/** A step the test finishes by hand: each call waits until the test settles it. */
function manualSteps() {
  const calls: { resolve: (more: boolean) => void; reject: (error: Error) => void }[] = [];
  const step = () =>
    new Promise<boolean>((resolve, reject) => {
      calls.push({ resolve, reject });
    });
  return { calls, step };
}

/** A logger that keeps its lines. */
function lines() {
  const written: { level: string; message: string; detail: unknown }[] = [];
  const at =
    (level: string) =>
    (detail: unknown, message: string): void => {
      written.push({ level, message, detail });
    };
  return { written, logger: { log: at('log'), error: at('error') } as unknown as Logger };
}

function queueOf(options: Partial<DeliveryQueueOptions> & Pick<DeliveryQueueOptions, 'step'>) {
  const registry = new SchedulerRegistry();
  const log = lines();
  const queue = new DeliveryQueue(registry, log.logger, {
    name: 'test',
    enabled: true,
    tickMs: 60_000,
    retry: { baseMs: 100, maxMs: 1_000, jitter: false },
    store: { purgeSettled: () => Promise.resolve(0) },
    retentionHours: 1,
    purgeBatchSize: 10,
    lines: { roundFailed: 'round failed', purged: 'purged', purgeFailed: 'purge failed' },
    ...options,
  });
  return { queue, registry, log };
}

describe('DeliveryQueue', () => {
  it('runs steps until one finds nothing; callers during a round share it and make it go once more', async () => {
    const { calls, step } = manualSteps();
    const { queue } = queueOf({ step });
    const first = queue.run();
    const second = queue.run();
    expect(second).toBe(first);
    expect(calls).toHaveLength(1);
    calls[0].resolve(true); // found rows: claim again at once
    await eventually(() => Promise.resolve(calls.length === 2), 1_000, 1);
    calls[1].resolve(false); // nothing left, but a caller asked during the round: once more
    await eventually(() => Promise.resolve(calls.length === 3), 1_000, 1);
    expect(queue.busy).toBe(true);
    calls[2].resolve(false);
    await first;
    expect(calls).toHaveLength(3);
    expect(queue.busy).toBe(false);
  });

  it('a failed round rejects its callers and is logged once per interval, not once per caller', async () => {
    const failure = new Error('statement timeout');
    const { queue, log } = queueOf({ step: () => Promise.reject(failure) });
    for (let round = 0; round < 3; round++) {
      const callers = [queue.run(), queue.run(), queue.run()];
      for (const caller of callers) await expect(caller).rejects.toBe(failure);
    }
    expect(log.written).toEqual([
      {
        level: 'error',
        message: 'round failed',
        detail: { err: failure, suppressed: 0, intervalMs: 10_000 },
      },
    ]);
    // Shutdown writes the count of the rounds that failed since.
    await queue.stop();
    expect(log.written.at(-1)).toMatchObject({
      message: 'round failed: 2 more since the last line',
      detail: { suppressed: 2 },
    });
  });

  it('a round failing because the database is out of reach is logged without a stack', async () => {
    // What pg rejects with while the database is cut away (its every tick fails).
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
    });
    const { queue, log } = queueOf({ step: () => Promise.reject(refused) });
    for (let round = 0; round < 5; round++) await expect(queue.run()).rejects.toBe(refused);
    await queue.stop();
    expect(log.written).toEqual([
      {
        level: 'error',
        message: 'round failed: Database unavailable (connection)',
        detail: {
          kind: 'Database unavailable (connection)',
          error: 'connect ECONNREFUSED 127.0.0.1:5432',
          suppressed: 0,
          intervalMs: 10_000,
        },
      },
      {
        level: 'error',
        message: 'round failed: Database unavailable (connection): 4 more since the last line',
        detail: expect.objectContaining({ suppressed: 4 }) as unknown,
      },
    ]);
  });

  it('kick starts a round outside the caller; it does nothing while disabled', async () => {
    let steps = 0;
    const step = () => Promise.resolve(++steps < 0);
    const off = queueOf({ step, enabled: false }).queue;
    off.kick();
    off.start();
    await off.idle();
    expect(steps).toBe(0);
    await off.run(); // a direct run still delivers (tests, a replica that drains on demand)
    expect(steps).toBe(1);

    const on = queueOf({ step }).queue;
    on.kick();
    await eventually(() => Promise.resolve(steps === 2), 1_000, 1);
    await on.stop();
  });

  it('start sets up the tick and the hourly purge and runs a first round; stop removes them and waits for the round', async () => {
    const { calls, step } = manualSteps();
    const { queue, registry } = queueOf({ step });
    queue.start();
    expect(registry.getIntervals().sort()).toEqual(['test-delivery', 'test-purge']);
    await eventually(() => Promise.resolve(calls.length === 1), 1_000, 1);
    let stopped = false;
    const stopping = queue.stop().then(() => (stopped = true));
    expect(registry.getIntervals()).toEqual([]);
    await Promise.resolve();
    expect(stopped).toBe(false); // the round in flight finishes first
    calls[0].resolve(true); // it found rows, yet no further step starts once stopped
    await stopping;
    expect(calls).toHaveLength(1);
    queue.kick();
    queue.start();
    expect(calls).toHaveLength(1);
    expect(registry.getIntervals()).toEqual([]);
  });

  it('purges batch after batch until one comes back short, at most maxBatches', async () => {
    const asked: [number, number][] = [];
    const answers = [10, 10, 3];
    const store = {
      purgeSettled: (retentionMs: number, limit: number) => {
        asked.push([retentionMs, limit]);
        return Promise.resolve(answers.shift() ?? 10);
      },
    };
    const { queue } = queueOf({ step: () => Promise.resolve(false), store, retentionHours: 2 });
    expect(await queue.purgeSettled()).toBe(23);
    expect(asked).toEqual([
      [7_200_000, 10],
      [7_200_000, 10],
      [7_200_000, 10],
    ]);
    expect(await queue.purgeSettled(2)).toBe(20); // full batches: stops at the bound
  });

  it('retries after the exponential delay, or a jittered one below it', () => {
    const exact = queueOf({ step: () => Promise.resolve(false) }).queue;
    expect([1, 2, 3, 4, 5].map((n) => exact.retryDelayMs(n))).toEqual([100, 200, 400, 800, 1_000]);
    const jittered = queueOf({
      step: () => Promise.resolve(false),
      retry: { baseMs: 100, maxMs: 1_000, jitter: true },
    }).queue;
    for (let n = 1; n <= 6; n++) {
      const delay = jittered.retryDelayMs(n);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThan(exact.retryDelayMs(n));
    }
  });
  it('a kick during a round keeps nothing of its caller alive while the round goes on', async () => {
    // Under a backlog a round goes on for as long as rows keep coming, and every POST, PATCH and
    // scheduler tick kicks it: what a kick left waiting on the round (its caller's async context,
    // with the request's logger) piled up for as long as the round lasted.
    const { calls, step } = manualSteps();
    const { queue } = queueOf({ step });
    const requestContext = new AsyncLocalStorage<{ payload: number[] }>();
    void queue.run(); // the round in progress
    let caller: WeakRef<object> | undefined;
    const kickFromARequest = () => {
      const store = { payload: new Array<number>(1_000).fill(1) };
      caller = new WeakRef(store);
      requestContext.run(store, () => queue.kick());
    };
    kickFromARequest();
    // A WeakRef holds its target until the job that made it ends; then collect.
    await new Promise((resolve) => setImmediate(resolve));
    setFlagsFromString('--expose-gc');
    (runInNewContext('gc') as () => void)();
    expect(queue.busy).toBe(true);
    expect(caller?.deref()).toBeUndefined();
    // The kick still counts: the round goes round once more before it ends.
    calls[0].resolve(false);
    await eventually(() => Promise.resolve(calls.length === 2), 1_000, 1);
    calls[1].resolve(false);
    await queue.idle();
    expect(calls).toHaveLength(2);
  });
});
