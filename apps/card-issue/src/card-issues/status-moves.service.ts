import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ENVIRONMENT } from '@bank/shared/nest';
import { CardIssueEnvironment } from '../config/environment';
import { MOVE_DUE_BATCH_SQL } from './card-issues.sql';
import { Clock } from '@bank/shared/calendar';

/**
 * The automatic moves: CREATED -> PROCESSING after one delay, PROCESSING -> READY
 * (VIRTUAL) or PLASTIC_READY (PLASTIC) after another, both counted from the last status
 * change.
 *
 * One statement per batch claims due requests with FOR UPDATE SKIP LOCKED, moves them,
 * writes their history entries and their outbox messages: a batch commits whole or not at
 * all (a killed replica leaves nothing half-applied), and replicas never claim the same
 * row. A manual PATCH racing a move holds or waits for the same row lock; PostgreSQL
 * re-checks the "due" condition on the row's latest version, so a request changed by
 * PATCH is not moved by a stale claim, and a PATCH that waits applies after the move.
 * The later of the two commits wins, and the history records both.
 */
@Injectable()
export class StatusMovesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clock: Clock,
    @Inject(ENVIRONMENT) private readonly env: CardIssueEnvironment,
  ) {}

  /** Moves one batch of due requests; returns how many moved. */
  async moveBatch(limit = this.env.SCHEDULER_BATCH_SIZE): Promise<number> {
    const now = this.clock.now();
    const createdBefore = new Date(now.getTime() - this.env.SCHEDULER_CREATED_DELAY_MS);
    const processingBefore = new Date(now.getTime() - this.env.SCHEDULER_PROCESSING_DELAY_MS);
    const moved = await this.dataSource.query<unknown[]>(MOVE_DUE_BATCH_SQL, [
      now,
      createdBefore,
      processingBefore,
      limit,
    ]);
    return moved.length;
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
