import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { IdempotencyKey } from './entities/idempotency-key.entity';

/** JSON with object keys sorted at every level, so equal bodies hash equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function hashBody(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

@Injectable()
export class IdempotencyRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Takes the key for this caller; false when another request holds or held it. */
  async claim(key: string, requestHash: string, now: Date): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(
      `INSERT INTO card_issue_idempotency_keys (key, request_hash, created_at) VALUES ($1, $2, $3)
       ON CONFLICT (key) DO NOTHING RETURNING key`,
      [key, requestHash, now],
    );
    return rows.length === 1;
  }

  find(key: string): Promise<IdempotencyKey | null> {
    return this.dataSource.getRepository(IdempotencyKey).findOneBy({ key });
  }

  /** Gives a key back when its request failed before storing anything, so a retry may proceed. */
  async release(key: string): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM card_issue_idempotency_keys WHERE key = $1 AND response IS NULL`,
      [key],
    );
  }

  /** Forgets keys older than the retention; returns how many. */
  async deleteOlderThan(cutoff: Date): Promise<number> {
    const result = await this.dataSource.query<{ n: number }[]>(
      `WITH gone AS (DELETE FROM card_issue_idempotency_keys WHERE created_at < $1 RETURNING 1) SELECT count(*)::int AS n FROM gone`,
      [cutoff],
    );
    return result[0].n;
  }
}
