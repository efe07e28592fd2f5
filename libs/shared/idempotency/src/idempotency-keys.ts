import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { failureFields } from './failure-fields';
import type { IdempotencySettings } from './idempotency-key.columns';
import { idempotencyKeySql, IdempotencyKeySql } from './idempotency-keys.sql';
import { hashBody } from './request-hash';

/** What runs a statement: a TypeORM DataSource, or the EntityManager of a transaction. */
export interface Queryable {
  query<T = unknown>(sql: string, parameters?: unknown[]): Promise<T>;
}

export interface IdempotencyOptions {
  /** The service's key table (see idempotency-keys.sql.ts for its columns). */
  table: string;
  /** How long a holder's claim lasts without a renewal; renewed every third of it. */
  leaseMs: number;
  /** How long a request waits for a parallel one with the same key before 409. */
  waitMs: number;
  /** How long a key and its response are kept. */
  ttlHours: number;
}

/** The options of a service's key table from its validated configuration. */
export function idempotencyOptions(table: string, env: IdempotencySettings): IdempotencyOptions {
  return {
    table,
    leaseMs: env.IDEMPOTENCY_LEASE_MS,
    waitMs: env.IDEMPOTENCY_WAIT_MS,
    ttlHours: env.IDEMPOTENCY_KEY_TTL_HOURS,
  };
}

/** A response as it was sent: status and the exact body text, replayed byte for byte. */
export interface StoredResponse {
  status: number;
  body: string;
}

/** The outcome of taking a key. */
export type IdempotencyClaim =
  /** The caller holds the key: it must complete the lease with its response, or release it. */
  | { kind: 'held'; lease: IdempotencyLease }
  /** A request with the same body finished: send its response again. */
  | { kind: 'replay'; response: StoredResponse }
  /** The key was used with another body. */
  | { kind: 'reused' }
  /** A request with the same body is still running (its holder renews its lease). */
  | { kind: 'in-progress'; retryAfterSeconds: number };

/** The lease was taken over (its holder stalled past it): the holder's work must roll back. */
export class IdempotencyLeaseLostError extends Error {
  constructor(readonly key: string) {
    super('The Idempotency-Key lease was taken over by another request');
    this.name = IdempotencyLeaseLostError.name;
  }
}

interface ClaimRow {
  claimed: boolean;
  requestHash: string | null;
  responseStatus: number | null;
  responseBody: string | null;
  leaseLeftMs: number | null;
}

/** First pause of a waiter; doubled after each look, up to MAX_PAUSE_MS. */
const FIRST_PAUSE_MS = 50;
const MAX_PAUSE_MS = 1_000;
/** A waiter looks again this long after the holder's lease runs out, to take the key over. */
const AFTER_LEASE_MS = 10;
const HOUR_MS = 3_600_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Idempotency-Key handling shared by the services. A key is bound to the hash of the first body
 * sent with it. Its holder has a lease in the database that it renews while it works; the
 * response is stored (exactly as sent) in the transaction that stores the work, by the holder
 * that still holds the lease, and replayed to a repeat. A holder that dies stops renewing: once
 * its lease has run out, the next request with the key takes it over. A waiter looks again
 * after a growing pause (50 ms doubling to 1 s, never past the lease's end), not in a loop.
 */
export class IdempotencyKeys {
  private readonly logger = new Logger(IdempotencyKeys.name);
  private readonly sql: IdempotencyKeySql;

  /**
   * @param now the service's clock, for created_at (what the retention counts from); leases
   *   use the database's clock
   */
  constructor(
    private readonly db: Queryable,
    private readonly options: IdempotencyOptions,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.sql = idempotencyKeySql(options.table);
  }

  /** Takes the key for a request with this body, waiting while a parallel one holds it. */
  async claim(key: string, body: unknown): Promise<IdempotencyClaim> {
    const requestHash = hashBody(body);
    const holder = randomUUID();
    const deadline = Date.now() + this.options.waitMs;
    let pause = FIRST_PAUSE_MS;
    for (;;) {
      const [row] = await this.db.query<ClaimRow[]>(this.sql.claim, [
        key,
        requestHash,
        holder,
        this.options.leaseMs,
        this.now(),
      ]);
      if (row?.claimed) return { kind: 'held', lease: this.lease(key, holder) };
      if (row && row.requestHash !== requestHash) return { kind: 'reused' };
      if (typeof row?.responseBody === 'string') {
        return {
          kind: 'replay',
          response: { status: row.responseStatus ?? 200, body: row.responseBody },
        };
      }
      // Held by a parallel request (or gone between the two halves of the statement: look again).
      const leaseLeft = row?.leaseLeftMs ?? 0;
      const left = deadline - Date.now();
      if (left <= 0) {
        return { kind: 'in-progress', retryAfterSeconds: Math.max(1, Math.ceil(leaseLeft / 1000)) };
      }
      await sleep(Math.min(pause, leaseLeft + AFTER_LEASE_MS, left));
      pause = Math.min(pause * 2, MAX_PAUSE_MS);
    }
  }

  /** Forgets the keys older than the retention that nobody holds; returns how many. */
  async purgeExpired(): Promise<number> {
    const cutoff = new Date(this.now().getTime() - this.options.ttlHours * HOUR_MS);
    const [{ n }] = await this.db.query<{ n: number }[]>(this.sql.purge, [cutoff]);
    return n;
  }

  private lease(key: string, holder: string): IdempotencyLease {
    return new IdempotencyLease(key, holder, this.db, this.sql, this.options.leaseMs, this.logger);
  }
}

/** A key held by this request: renewed until completed or released. */
export class IdempotencyLease {
  private readonly renewal: NodeJS.Timeout;

  constructor(
    readonly key: string,
    private readonly holder: string,
    private readonly db: Queryable,
    private readonly sql: IdempotencyKeySql,
    private readonly leaseMs: number,
    private readonly logger: Logger,
  ) {
    this.renewal = setInterval(() => void this.renew(), Math.max(1, Math.floor(leaseMs / 3)));
    this.renewal.unref();
  }

  /**
   * Stores the response with the key, in the caller's transaction (so it commits with the work).
   *
   * @throws IdempotencyLeaseLostError when another request took the key over: roll back
   */
  async complete(transaction: Queryable, response: StoredResponse): Promise<void> {
    this.stop();
    const rows = await transaction.query<unknown[]>(this.sql.complete, [
      this.key,
      this.holder,
      response.status,
      response.body,
    ]);
    if (rows.length !== 1) throw new IdempotencyLeaseLostError(this.key);
  }

  /** Gives the key back when the request stored nothing, so a retry may proceed at once. */
  async release(): Promise<void> {
    this.stop();
    await this.db.query(this.sql.release, [this.key, this.holder]);
  }

  private stop(): void {
    clearInterval(this.renewal);
  }

  private async renew(): Promise<void> {
    try {
      const rows = await this.db.query<unknown[]>(this.sql.renew, [
        this.key,
        this.holder,
        this.leaseMs,
      ]);
      if (rows.length !== 1) this.stop();
    } catch (error) {
      // A missed renewal only risks a takeover, which complete() detects.
      this.logger.warn(failureFields(error), 'Idempotency-Key lease renewal failed');
    }
  }
}
