/**
 * The statements on an idempotency-key table, for the table name a service gives. Every
 * service keeps its keys in its own database (a table its own migration creates) with these
 * columns:
 *
 *   key varchar(255) PRIMARY KEY, request_hash char(64) NOT NULL, holder uuid NULL,
 *   locked_until timestamptz NULL, response_status smallint NULL, response_body text NULL,
 *   created_at timestamptz NOT NULL
 *
 * A key is either held (holder and locked_until set, no response) or finished (response set).
 * Lease instants use the database's clock, the one clock every replica shares.
 */
export interface IdempotencyKeySql {
  /**
   * Takes key $1 for body hash $2 as holder $3 with a lease of $4 ms, created at $5: inserts it,
   * or takes it over when its holder's lease ran out without a response. One row either way:
   * claimed = true, or the key as it stands (hash, response, lease left in ms).
   */
  claim: string;
  /** Extends holder $2's lease on key $1 to $3 ms from now; a row only if $2 still holds it. */
  renew: string;
  /** Stores the response ($3 status, $4 body) of holder $2 on key $1; a row only if $2 held it. */
  complete: string;
  /** Gives key $1 back if holder $2 still holds it (nothing was stored). */
  release: string;
  /** Forgets keys created before $1 that nobody holds; returns how many as n. */
  purge: string;
}

export function idempotencyKeySql(table: string): IdempotencyKeySql {
  if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new Error(`Not a plain table name: ${table}`);
  return {
    claim: `WITH taken AS (
   INSERT INTO ${table} AS k (key, request_hash, holder, locked_until, created_at)
   VALUES ($1, $2, $3::uuid, clock_timestamp() + $4::int * interval '1 millisecond', $5)
   ON CONFLICT (key) DO UPDATE
     SET request_hash = EXCLUDED.request_hash, holder = EXCLUDED.holder,
         locked_until = EXCLUDED.locked_until, created_at = EXCLUDED.created_at
     WHERE k.response_body IS NULL AND k.locked_until <= clock_timestamp()
   RETURNING key
 )
 SELECT true AS claimed, NULL AS "requestHash", NULL::int AS "responseStatus",
        NULL AS "responseBody", NULL::float8 AS "leaseLeftMs"
 FROM taken
 UNION ALL
 SELECT false, request_hash, response_status, response_body,
        greatest(0, extract(epoch FROM locked_until - clock_timestamp()) * 1000)::float8
 FROM ${table} WHERE key = $1 AND NOT EXISTS (SELECT 1 FROM taken)`,
    // UPDATEs are wrapped in a SELECT: TypeORM returns [rows, count] for a bare UPDATE.
    renew: `WITH renewed AS (
   UPDATE ${table} SET locked_until = clock_timestamp() + $3::int * interval '1 millisecond'
   WHERE key = $1 AND holder = $2::uuid AND response_body IS NULL RETURNING key
 )
 SELECT key FROM renewed`,
    complete: `WITH completed AS (
   UPDATE ${table} SET response_status = $3, response_body = $4, holder = NULL, locked_until = NULL
   WHERE key = $1 AND holder = $2::uuid AND response_body IS NULL RETURNING key
 )
 SELECT key FROM completed`,
    release: `DELETE FROM ${table} WHERE key = $1 AND holder = $2::uuid AND response_body IS NULL`,
    purge: `WITH gone AS (
   DELETE FROM ${table}
   WHERE created_at < $1 AND (response_body IS NOT NULL OR locked_until <= clock_timestamp())
   RETURNING 1
 )
 SELECT count(*)::int AS n FROM gone`,
  };
}
