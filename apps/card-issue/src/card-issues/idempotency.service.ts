import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '@bank/shared/calendar';
import { ENVIRONMENT } from '@bank/shared/nest';
import { CardIssueEnvironment } from '../config/environment.config';
import { CardIssuesRepository } from './card-issues.repository';
import { IdempotencyKeyInProgressError, IdempotencyKeyReusedError } from './card-issues.errors';
import { CardIssueResponseDto } from './dto/card-issue-response.dto';
import { hashBody } from './idempotency.hash';

/** How long a request waits for a parallel one with the same Idempotency-Key to finish. */
const WAIT_MS = 15_000;
const POLL_MS = 25;
const HOUR_MS = 3_600_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The Idempotency-Key of POST /api/v1/card-issue: a key is bound to the hash of the first body
 * sent with it; the response of that request is stored with the key (by the same statement that
 * stores the request) and replayed to a repeat.
 */
@Injectable()
export class IdempotencyService {
  constructor(
    private readonly repository: CardIssuesRepository,
    private readonly clock: Clock,
    @Inject(ENVIRONMENT) private readonly env: CardIssueEnvironment,
  ) {}

  /**
   * Takes the key for this request: null when the caller now holds it (and must store its
   * response or release the key), or the response to replay when a request with the same body
   * already finished. Waits while a parallel request with the key runs.
   *
   * @throws IdempotencyKeyReusedError when the key was sent with another body
   * @throws IdempotencyKeyInProgressError when the parallel request does not finish in time
   */
  async claim(key: string, body: unknown): Promise<CardIssueResponseDto | null> {
    const requestHash = hashBody(body);
    const deadline = Date.now() + WAIT_MS;
    while (!(await this.repository.claimIdempotencyKey(key, requestHash, this.clock.now()))) {
      const existing = await this.repository.findIdempotencyKey(key);
      if (existing) {
        if (existing.requestHash !== requestHash) throw new IdempotencyKeyReusedError();
        if (existing.response) return existing.response;
      }
      // The first request with this key is still running (or just gave the key back).
      await this.wait(deadline);
    }
    return null;
  }

  /** Gives a key back when its request failed before storing anything, so a retry may proceed. */
  release(key: string): Promise<void> {
    return this.repository.releaseIdempotencyKey(key);
  }

  /** Forgets the keys older than IDEMPOTENCY_KEY_TTL_HOURS; returns how many. */
  purgeExpired(): Promise<number> {
    const cutoff = new Date(
      this.clock.now().getTime() - this.env.IDEMPOTENCY_KEY_TTL_HOURS * HOUR_MS,
    );
    return this.repository.deleteIdempotencyKeysBefore(cutoff);
  }

  /** One poll interval, or IdempotencyKeyInProgressError once the deadline has passed. */
  private async wait(deadline: number): Promise<void> {
    if (Date.now() > deadline) throw new IdempotencyKeyInProgressError();
    await sleep(POLL_MS);
  }
}
