import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ENVIRONMENT } from '@bank/shared/nest';
import { continueTrace } from '@bank/shared/tracing';
import { CardIssueEnvironment } from '../config/environment.config';
import { NewUser, UsersClient } from '../integrations/users/users.client';
import { CardIssuesRepository } from './card-issues.repository';

/** How long one sweep of a holder may take (a create and a delete, retries included) before another sweeper may take it. */
const SWEEP_LEASE_MS = 60_000;
/** Holder creations looked at per run. */
const SWEEP_BATCH = 100;

export interface SweepResult {
  /** Users deleted: created for a request that was never stored. */
  deleted: number;
  /** Creations settled without a delete: no user was made, or a stored request holds it. */
  settled: number;
}

/**
 * Deletes third-party holders whose card request was never stored (the answer of the user
 * service was lost, the process died, and the client did not retry within
 * HOLDER_SWEEP_AFTER_MS). Safe against a late retry: a retry and a sweep of the same holder
 * exclude each other through the creation's row
 * (docs/decisions/0008-third-party-holder-created-idempotently.md: the third-party holder
 * after a timeout).
 */
@Injectable()
export class HolderSweeper {
  private readonly logger = new Logger(HolderSweeper.name);

  constructor(
    private readonly repository: CardIssuesRepository,
    private readonly users: UsersClient,
    @Inject(ENVIRONMENT) private readonly env: CardIssueEnvironment,
  ) {}

  /** One run: up to SWEEP_BATCH abandoned creations; stops at the first user service outage. */
  async sweep(): Promise<SweepResult> {
    const sweeper = randomUUID();
    const result: SweepResult = { deleted: 0, settled: 0 };
    for (let i = 0; i < SWEEP_BATCH; i++) {
      const abandoned = await this.repository.claimAbandonedHolder(
        this.env.HOLDER_SWEEP_AFTER_MS,
        SWEEP_LEASE_MS,
        sweeper,
      );
      if (!abandoned) break;
      // A trace of its own per holder (sampled as a new trace is): the create and the delete
      // it sends the user service, and its statements, under one root span.
      const outcome = await continueTrace(null, 'holder sweep', {}, () =>
        this.sweepOne(abandoned.key, abandoned.holder as unknown as NewUser, sweeper),
      );
      if (outcome === 'unavailable') break;
      if (outcome === 'deleted') result.deleted++;
      else if (outcome === 'settled') result.settled++;
    }
    if (result.deleted > 0) this.logger.log(result, 'Deleted abandoned third-party holders');
    return result;
  }

  /**
   * The same create with the same key answers with the user an earlier attempt made (or makes
   * it now, to be deleted at once: the user service cannot tell us otherwise whether it has
   * one). An outage leaves the creation leased; a later run takes it again.
   */
  private async sweepOne(
    key: string,
    holder: NewUser,
    sweeper: string,
  ): Promise<'deleted' | 'settled' | 'unavailable' | 'taken over'> {
    const created = await this.users.createUser(holder, key);
    if (created.kind === 'unavailable') return 'unavailable';
    let outcome: 'deleted' | 'settled' = 'settled';
    if (created.kind === 'ok' && !(await this.repository.isHolderReferenced(created.value.id))) {
      // A retry of the request claims the creation back only once the lease has run out.
      if (!(await this.repository.renewHolderSweep(key, sweeper, SWEEP_LEASE_MS)))
        return 'taken over';
      const removed = await this.users.deleteUser(created.value.id);
      if (removed.kind === 'unavailable') return 'unavailable';
      outcome = 'deleted';
    }
    await this.repository.forgetHolderCreation(key, sweeper);
    return outcome;
  }
}
