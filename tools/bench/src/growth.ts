import {
  bulkRequests,
  MOVE_DUE_BATCH_SQL,
  requestsOf,
  seedCardIssues,
} from '@bank/card-issue/testing';
import { BenchContext, log } from './context';
import { createDatabase, migrateCardIssue, session, startCardIssue, withClient } from './infra';
import { load } from './load';
import type { RunResult } from './rows';
import { Scenario } from './scenarios';
import { median } from './stats';

export interface GrowthRow {
  stored: number;
  byClient: RunResult;
  /** Median of 5 runs of one scheduler batch of 500 due requests. */
  batchMs: number;
}

/** The client whose GET by client is measured: exactly 10 requests, whatever the table size. */
const MEASURED_CLIENT = 'XBENCH';

const BY_CLIENT: Scenario = {
  name: 'by client',
  service: 'card',
  method: 'GET',
  path: () => `/api/v1/card-issue/client/${MEASURED_CLIENT}`,
};

/** One scheduler batch, five times, each in a transaction rolled back so all see the same data. */
async function batchMedianMs(url: string): Promise<number> {
  const timings: number[] = [];
  await withClient(url, async (c) => {
    for (let i = 0; i < 5; i++) {
      await c.query('BEGIN');
      const now = new Date();
      const start = process.hrtime.bigint();
      const moved = await c.query(MOVE_DUE_BATCH_SQL, [now, now, now, 500]);
      timings.push(Number(process.hrtime.bigint() - start) / 1e6);
      await c.query('ROLLBACK');
      if (moved.rowCount !== 500) throw new Error(`batch moved ${moved.rowCount}`);
    }
  });
  return median(timings);
}

/** GET by client and one scheduler batch with 10^4, 10^5, 10^6 stored requests (up to BENCH_GROWTH_MAX). */
export async function growthBench(ctx: BenchContext): Promise<GrowthRow[]> {
  log('growth');
  const url = await createDatabase(ctx, 'growth');
  migrateCardIssue(ctx, url);
  await withClient(url, (c) => seedCardIssues(session(c), requestsOf(MEASURED_CLIENT, 10)));
  const rows: GrowthRow[] = [];
  let stored = 10;
  for (const target of [10_000, 100_000, 1_000_000].filter((n) => n <= ctx.settings.growthMax)) {
    const t0 = Date.now();
    await withClient(url, async (c) => {
      await seedCardIssues(session(c), bulkRequests(stored + 1, target, 'mixed'));
      await c.query('ANALYZE card_issue_requests; ANALYZE card_issue_status_history');
    });
    log(
      `growth: ${target} requests stored (+${target - stored} in ${((Date.now() - t0) / 1000).toFixed(1)} s)`,
    );
    stored = target;
    const service = await startCardIssue(ctx, url, { DB_MIGRATIONS_RUN: 'false' });
    let byClient: RunResult;
    try {
      await load(service, BY_CLIENT, 10, 1);
      byClient = await load(service, BY_CLIENT, 10, 3);
    } finally {
      await service.stop();
    }
    rows.push({ stored, byClient, batchMs: await batchMedianMs(url) });
  }
  return rows;
}
