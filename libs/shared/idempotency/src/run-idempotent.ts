import { Logger } from '@nestjs/common';
import { failureFields } from './failure-fields';
import { IdempotencyClaim, IdempotencyLease, IdempotencyLeaseLostError } from './idempotency-keys';

/** A response text and whether it was an earlier one sent again. */
export interface IdempotentAnswer {
  body: string;
  replayed: boolean;
}

/** The service's own errors (its language, its codes) for the two ways a key is refused. */
export interface KeyConflicts {
  reused(): Error;
  inProgress(retryAfterSeconds: number): Error;
}

const logger = new Logger('Idempotency');

/**
 * The one flow of an Idempotency-Key, for every service: replay a finished request's response,
 * refuse another body or a request still in progress, or run `work` while holding the key. Work
 * that fails gives the key back, so a retry may proceed at once; work whose lease was taken over
 * (its holder stalled past it) answers as in progress, since the new holder answers for the key.
 */
export async function runIdempotent(
  keys: { claim(key: string, body: unknown): Promise<IdempotencyClaim> },
  key: string,
  body: unknown,
  conflicts: KeyConflicts,
  work: (lease: IdempotencyLease) => Promise<string>,
): Promise<IdempotentAnswer> {
  const claim = await keys.claim(key, body);
  if (claim.kind === 'replay') return { body: claim.response.body, replayed: true };
  if (claim.kind === 'reused') throw conflicts.reused();
  if (claim.kind === 'in-progress') throw conflicts.inProgress(claim.retryAfterSeconds);
  try {
    return { body: await work(claim.lease), replayed: false };
  } catch (error) {
    await claim.lease
      .release()
      .catch((releaseError: unknown) =>
        logger.warn(
          failureFields(releaseError),
          'Idempotency-Key not released; its lease will run out',
        ),
      );
    if (error instanceof IdempotencyLeaseLostError) throw conflicts.inProgress(1);
    throw error;
  }
}
