import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { databaseOutage } from '@bank/shared/database';
import { FailureLog } from '@bank/shared/logging';
import { ENVIRONMENT } from '@bank/shared/nest';
import { CardIssueEnvironment } from '../config/environment.config';
import { OutboxService } from '../outbox/outbox.service';
import { WebhookDispatcherService } from '../webhooks/webhook-dispatcher.service';
import { HolderSweeper } from './holder-sweeper.service';
import { IdempotencyService } from './idempotency.service';
import { StatusMovesService } from './status-moves.service';
import { SchedulerMetrics } from './scheduler.metrics';

/** The status moves' interval in the SchedulerRegistry. */
export const STATUS_MOVES_INTERVAL = 'card-issue-status-moves';
const MOVES = STATUS_MOVES_INTERVAL;
const CLEANUP = 'card-issue-idempotency-cleanup';
const HOUR = 3_600_000;

/**
 * Timed entry points only: status moves every SCHEDULER_TICK_MS; every hour, expired
 * idempotency keys and abandoned third-party holders. Ticks never overlap; on shutdown no tick starts and the one in flight ends.
 */
@Injectable()
export class CardIssuesScheduler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(CardIssuesScheduler.name);
  /** A tick that fails every time (the database out of reach) is one line per interval. */
  private readonly failures: FailureLog;
  private inFlight: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly registry: SchedulerRegistry,
    private readonly moves: StatusMovesService,
    private readonly outbox: OutboxService,
    private readonly webhooks: WebhookDispatcherService,
    private readonly idempotency: IdempotencyService,
    private readonly holders: HolderSweeper,
    @Inject(ENVIRONMENT) private readonly env: CardIssueEnvironment,
    private readonly metrics: SchedulerMetrics,
  ) {
    this.failures = new FailureLog(this.logger, env.ERROR_LOG_INTERVAL_MS, databaseOutage);
  }

  onApplicationBootstrap(): void {
    if (!this.env.SCHEDULER_ENABLED) {
      this.logger.log('Scheduler is off (SCHEDULER_ENABLED=false)');
      return;
    }
    this.registry.addInterval(
      MOVES,
      setInterval(() => this.tick(), this.env.SCHEDULER_TICK_MS),
    );
    this.registry.addInterval(
      CLEANUP,
      setInterval(() => this.run(() => this.cleanup()), HOUR),
    );
  }

  /** One round of automatic moves; skipped while the previous one still runs. */
  tick(): void {
    this.run(async () => {
      let moved: number;
      try {
        moved = await this.moves.moveDue();
      } catch (error) {
        this.metrics.tickFailed();
        throw error;
      }
      this.metrics.tickDone(moved);
      if (moved > 0) {
        this.logger.debug({ moved }, 'Moved card issue requests');
        this.outbox.kick();
        this.webhooks.kick();
      }
    });
  }

  private run(work: () => Promise<void>): void {
    if (this.stopped || this.inFlight) return;
    this.inFlight = work()
      .catch((error: unknown) => this.failures.report('Scheduled work failed', error))
      .finally(() => (this.inFlight = null));
  }

  private async cleanup(): Promise<void> {
    const removed = await this.idempotency.purgeExpired();
    if (removed) this.logger.log({ removed }, 'Removed expired idempotency keys');
    await this.holders.sweep();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    for (const name of [MOVES, CLEANUP]) {
      if (this.registry.doesExist('interval', name)) this.registry.deleteInterval(name);
    }
    await this.inFlight;
    this.failures.flush();
  }
}
