/** What runs a statement: a TypeORM DataSource, or the EntityManager of a transaction. */
export interface Queryable {
  query<T = unknown>(sql: string, parameters?: unknown[]): Promise<T>;
}

/** Rows waiting and given up (each counted up to a cap), and the age of the oldest waiting. */
export interface DeliveryBacklog {
  pending: number;
  dead: number;
  oldestPendingSeconds: number;
}

/** A queue table's statements that every queue runs alike (delivery-table.sql.ts). */
export interface DeliveryStoreStatements {
  /** purgeSettledSql of the table. */
  purgeSettled: string;
  /** backlogSql of the table. */
  backlog: string;
}

/**
 * The storage side every delivery queue shares: the backlog for its metrics and the purge of
 * settled rows. A queue's repository extends it with its own claim and settle statements.
 */
export class DeliveryStore {
  constructor(
    private readonly runner: Queryable,
    private readonly statements: DeliveryStoreStatements,
  ) {}

  /** The backlog for the metrics, counts capped at `cap`. */
  async backlog(cap: number): Promise<DeliveryBacklog> {
    const [row] = await this.runner.query<DeliveryBacklog[]>(this.statements.backlog, [cap]);
    return row;
  }

  /** Deletes up to `limit` rows settled more than `retentionMs` ago; returns how many. */
  async purgeSettled(retentionMs: number, limit: number): Promise<number> {
    const [{ n }] = await this.runner.query<{ n: number }[]>(this.statements.purgeSettled, [
      retentionMs,
      limit,
    ]);
    return n;
  }
}
