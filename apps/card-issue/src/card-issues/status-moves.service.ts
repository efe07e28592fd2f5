import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '@bank/shared/calendar';
import { ENVIRONMENT } from '@bank/shared/nest';
import { CardIssueEnvironment } from '../config/environment.config';
import { CardIssuesRepository } from './card-issues.repository';

/**
 * The automatic moves: CREATED -> PROCESSING after one delay, PROCESSING -> READY
 * (VIRTUAL) or PLASTIC_READY (PLASTIC) after another, both counted from the last status
 * change.
 *
 * One statement per batch (CardIssuesRepository.moveDueBatch) claims due requests with FOR
 * UPDATE SKIP LOCKED, moves them, writes their history entries and their outbox messages: a
 * batch commits whole or not at all (a killed replica leaves nothing half-applied), and replicas never claim the same
 * row. A manual PATCH racing a move holds or waits for the same row lock; PostgreSQL
 * re-checks the "due" condition on the row's latest version, so a request changed by
 * PATCH is not moved by a stale claim, and a PATCH that waits applies after the move.
 * The later of the two commits wins, and the history records both.
 */
@Injectable()
export class StatusMovesService {
  constructor(
    private readonly repository: CardIssuesRepository,
    private readonly clock: Clock,
    @Inject(ENVIRONMENT) private readonly env: CardIssueEnvironment,
  ) {}

  /** Moves one batch of due requests; returns how many moved. */
  async moveBatch(limit = this.env.SCHEDULER_BATCH_SIZE): Promise<number> {
    const now = this.clock.now();
    return this.repository.moveDueBatch({
      now,
      createdBefore: new Date(now.getTime() - this.env.SCHEDULER_CREATED_DELAY_MS),
      processingBefore: new Date(now.getTime() - this.env.SCHEDULER_PROCESSING_DELAY_MS),
      limit,
    });
  }

  /** Moves everything due now, batch after batch (bounded, so one tick cannot run forever). */
  async moveDue(maxBatches = 100): Promise<number> {
    let total = 0;
    for (let i = 0; i < maxBatches; i++) {
      const moved = await this.moveBatch();
      total += moved;
      if (moved < this.env.SCHEDULER_BATCH_SIZE) break;
    }
    return total;
  }
}
