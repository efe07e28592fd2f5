import { Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { FailureLog } from '@bank/shared/logging';

const HOUR_MS = 3_600_000;

/** What one delivery loop drives (a DeliveryQueue). */
export interface DeliveryLoopWork {
  /** Its intervals are `<name>-delivery` and `<name>-purge` in the SchedulerRegistry. */
  name: string;
  tickMs: number;
  /** Starts a delivery round without waiting for it. */
  kick(): void;
  /** Deletes what was settled longer ago than its retention; resolves to how many. */
  purge(): Promise<number>;
  /** Log lines of a purge that removed something, and of one that failed. */
  purged: string;
  purgeFailed: string;
}

/**
 * The timed entry points of a delivery queue: a delivery round every tick picks up retries whose
 * backoff ran out and work whose lease expired (another replica's, or a crashed one's); fresh
 * work is kicked at once by the change that wrote it. Every hour, a purge that never overlaps
 * the one before. Stopped before the HTTP server closes.
 */
export class DeliveryLoop {
  private purging: Promise<void> | null = null;

  constructor(
    private readonly registry: SchedulerRegistry,
    private readonly logger: Logger,
    private readonly failures: FailureLog,
    private readonly work: DeliveryLoopWork,
  ) {}

  private get names(): [delivery: string, purge: string] {
    return [`${this.work.name}-delivery`, `${this.work.name}-purge`];
  }

  start(): void {
    const [delivery, purge] = this.names;
    this.registry.addInterval(
      delivery,
      setInterval(() => this.work.kick(), this.work.tickMs),
    );
    this.registry.addInterval(
      purge,
      setInterval(() => this.purge(), HOUR_MS),
    );
    this.work.kick(); // whatever a previous run left behind
  }

  async stop(): Promise<void> {
    for (const name of this.names) {
      if (this.registry.doesExist('interval', name)) this.registry.deleteInterval(name);
    }
    await this.purging;
  }

  private purge(): void {
    if (this.purging) return;
    this.purging = this.work
      .purge()
      .then((removed) => {
        if (removed) this.logger.log({ removed }, this.work.purged);
      })
      .catch((error: unknown) => this.failures.report(this.work.purgeFailed, error))
      .finally(() => (this.purging = null));
  }
}
