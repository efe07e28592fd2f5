import { Inject, Injectable } from '@nestjs/common';
import { Counter, Histogram } from 'prom-client';
import { Clock } from '@bank/shared/calendar';
import { Metrics, sampled } from '@bank/shared/metrics';
import { ENVIRONMENT } from '@bank/shared/nest';
import { CardIssueEnvironment } from '../config/environment.config';
import { CardIssuesRepository } from './card-issues.repository';

/** Counts stop here: beyond it the backlog is "at least this" (and the alert fired long ago). */
export const BACKLOG_COUNT_CAP = 100_000;
/** Scrapers (one per Prometheus replica) share one backlog query per this interval. */
const BACKLOG_MAX_AGE_MS = 1_000;

/**
 * The status moves as an operator watches them: the due backlog and how long its oldest request
 * has been due (read at scrape time from the status index; the same on every replica, as it is
 * the database's), and what each tick moved.
 */
@Injectable()
export class SchedulerMetrics {
  private readonly moves: Histogram;
  private readonly ticks: Counter<'outcome'>;

  constructor(
    metrics: Metrics,
    repository: CardIssuesRepository,
    clock: Clock,
    @Inject(ENVIRONMENT) env: CardIssueEnvironment,
  ) {
    const backlog = sampled(() => {
      const now = clock.now().getTime();
      return repository.dueBacklog(
        {
          now: new Date(now),
          createdBefore: new Date(now - env.SCHEDULER_CREATED_DELAY_MS),
          processingBefore: new Date(now - env.SCHEDULER_PROCESSING_DELAY_MS),
        },
        BACKLOG_COUNT_CAP,
      );
    }, BACKLOG_MAX_AGE_MS);
    metrics.gauge({
      name: 'card_issue_scheduler_due_requests',
      help: `Requests due for an automatic status move and not moved yet (each status counted up to ${BACKLOG_COUNT_CAP})`,
      async collect() {
        this.set((await backlog())?.due ?? NaN);
      },
    });
    metrics.gauge({
      name: 'card_issue_scheduler_oldest_due_age_seconds',
      help: 'How long the oldest due request has been waiting for its move (0: none due)',
      async collect() {
        this.set((await backlog())?.oldestDueSeconds ?? NaN);
      },
    });
    this.moves = metrics.histogram({
      name: 'card_issue_scheduler_moves_per_tick',
      help: 'Requests one scheduler tick moved',
      buckets: [0, 1, 10, 100, 500, 1_000, 5_000, 10_000, 50_000],
    });
    this.ticks = metrics.counter({
      name: 'card_issue_scheduler_ticks_total',
      help: 'Scheduler ticks run, by outcome (ok, failed)',
      labelNames: ['outcome'],
    });
  }

  tickDone(moved: number): void {
    this.moves.observe(moved);
    this.ticks.inc({ outcome: 'ok' });
  }

  tickFailed(): void {
    this.ticks.inc({ outcome: 'failed' });
  }
}
