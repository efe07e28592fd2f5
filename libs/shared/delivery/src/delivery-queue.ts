import { Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { databaseOutage } from '@bank/shared/database';
import { FailureLog } from '@bank/shared/logging';
import { runDetached } from '@bank/shared/tracing';
import { exponentialBackoffMs, fullJitterBackoffMs, RetryPolicy } from './backoff';
import { DeliveryLoop } from './delivery-loop';
import type { DeliveryStore } from './delivery-store';

const HOUR_MS = 3_600_000;
/** A failed round (the claim itself failing) is logged at most once per this interval by default. */
const ROUND_FAILURE_LOG_INTERVAL_MS = 10_000;
/** Purge statements one purge runs at most, so that one run cannot hold the scheduler forever. */
const PURGE_MAX_BATCHES = 100;

export interface DeliveryQueueOptions {
  /** Names its intervals: `<name>-delivery` and `<name>-purge` in the SchedulerRegistry. */
  name: string;
  /** Off: kick and start do nothing (rows wait); run still delivers when called. */
  enabled: boolean;
  /** How often a round picks up retries whose backoff ran out and rows whose lease expired. */
  tickMs: number;
  /**
   * One step of a round: claims a batch and delivers it (or starts its deliveries); resolves to
   * whether to claim again at once. A rejection ends the round as failed.
   */
  step(): Promise<boolean>;
  retry: RetryPolicy;
  /** Settled rows are deleted `retentionHours` after they settled, `purgeBatchSize` per statement. */
  store: Pick<DeliveryStore, 'purgeSettled'>;
  retentionHours: number;
  purgeBatchSize: number;
  /** The log lines of a failed round, of a purge that removed rows, and of a failed purge. */
  lines: { roundFailed: string; purged: string; purgeFailed: string };
  /** A failure that repeats is logged once per kind per this interval (default 10 s). */
  failureLogIntervalMs?: number;
}

/**
 * The running side of a delivery queue (its table's statements: delivery-table.sql.ts): rounds
 * of claim-and-deliver steps, started by a kick after a change committed and by a tick for
 * retries and expired leases; concurrent asks share the round in progress (and make it go round
 * once more), so a burst of changes costs one claim, not one per change. A round whose claim
 * fails ends there (the next kick or tick tries again) and is logged at most once per kind per
 * interval with the count of the others (FailureLog: no stack for the database out of reach). An hourly purge deletes settled rows. The queue's service
 * builds one and extends DeliveryService, which starts it on bootstrap and stops it before
 * shutdown.
 */
export class DeliveryQueue {
  private round: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private readonly loop: DeliveryLoop;
  /**
   * Failed rounds and purges: one line per kind per interval, with the count of the others; a
   * stack only for an unexpected failure, not for the database out of reach.
   */
  private readonly failures: FailureLog;

  constructor(
    registry: SchedulerRegistry,
    logger: Logger,
    private readonly options: DeliveryQueueOptions,
  ) {
    this.failures = new FailureLog(
      logger,
      options.failureLogIntervalMs ?? ROUND_FAILURE_LOG_INTERVAL_MS,
      databaseOutage,
    );
    this.loop = new DeliveryLoop(registry, logger, this.failures, {
      name: options.name,
      tickMs: options.tickMs,
      kick: () => this.kick(),
      purge: () => this.purgeSettled(),
      purged: options.lines.purged,
      purgeFailed: options.lines.purgeFailed,
    });
  }

  /** Asks for a round soon, without waiting for it (after a change was committed). */
  kick(): void {
    if (this.stopped || !this.options.enabled) return;
    // A round in progress only has to go round once more. Waiting on it from here would keep
    // this caller's async context (its request's logger and stores) alive until the round ends,
    // and under a backlog a round goes on for as long as rows keep coming: one kick per POST,
    // PATCH and tick piled up in memory.
    if (this.round) {
      this.again = true;
      return;
    }
    // run() logs a failed round itself, once for all the callers sharing it. The round is no
    // single request's (it is shared, and delivers other requests' rows): it runs outside the
    // caller's trace and request id; each delivery continues its own row's.
    void runDetached(() => this.run()).catch(() => undefined);
  }

  /**
   * Runs steps until one says there is nothing more to claim; concurrent calls share one round.
   * Rejects when a step did (the round is logged as failed).
   */
  run(): Promise<void> {
    if (this.round) {
      this.again = true;
      return this.round;
    }
    // Cleared in a promise reaction, which always runs after this assignment: a round that ends
    // without awaiting anything must not leave itself behind as the round in progress, or no
    // round would start again.
    const round = this.steps().finally(() => {
      if (this.round === round) this.round = null;
    });
    this.round = round;
    return round;
  }

  private async steps(): Promise<void> {
    try {
      do {
        this.again = false;
        while (!this.stopped && (await this.options.step())) {
          // keep claiming while steps find rows
        }
      } while (this.again && !this.stopped);
    } catch (error) {
      this.failures.report(this.options.lines.roundFailed, error);
      throw error;
    }
  }

  /** Whether a round is in progress. */
  get busy(): boolean {
    return this.round !== null;
  }

  /** Resolves once no round is in progress (whether the last one failed or not). */
  async idle(): Promise<void> {
    while (this.round) await this.round.catch(() => undefined);
  }

  /** How long a row waits after its failed attempt number `attempts` (1 for the first). */
  retryDelayMs(attempts: number): number {
    const { baseMs, maxMs, jitter } = this.options.retry;
    return jitter
      ? fullJitterBackoffMs(attempts, baseMs, maxMs)
      : exponentialBackoffMs(attempts, baseMs, maxMs);
  }

  /**
   * Deletes the rows settled more than the retention ago, batch after batch (bounded, so one run
   * cannot hold the scheduler forever); returns how many.
   */
  async purgeSettled(maxBatches = PURGE_MAX_BATCHES): Promise<number> {
    const retentionMs = this.options.retentionHours * HOUR_MS;
    const batchSize = this.options.purgeBatchSize;
    let total = 0;
    for (let i = 0; i < maxBatches && !this.stopped; i++) {
      const removed = await this.options.store.purgeSettled(retentionMs, batchSize);
      total += removed;
      if (removed < batchSize) break;
    }
    return total;
  }

  /** On bootstrap: the tick, the hourly purge and a first round (what a previous run left). */
  start(): void {
    if (this.options.enabled && !this.stopped) this.loop.start();
  }

  /** Before the HTTP server closes: nothing new starts; the round and the purge in flight finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([this.loop.stop(), this.idle()]);
    this.failures.flush();
  }
}
