import { Client } from 'pg';
import { BenchContext, log, sleep } from './context';
import { bulkRequests, seedCardIssues } from '@bank/card-issue/testing';
import { createDatabase, migrateCardIssue, session, startCardIssue, withClient } from './infra';

export interface SchedulerResult {
  replicas: number;
  requests: number;
  seconds: number;
  schedulerMoves: number;
  duplicates: number;
}

/**
 * `replicas` card-issue processes with the scheduler on (100 ms ticks, no delays) against a
 * fresh database; times how long they take to move BENCH_SCHEDULER_ROWS CREATED requests,
 * stored at once, to their final status, then counts duplicate moves.
 */
async function schedulerRun(ctx: BenchContext, replicas: number): Promise<SchedulerResult> {
  const requests = ctx.settings.schedulerRows;
  const url = await createDatabase(ctx, `sched${replicas}`);
  migrateCardIssue(ctx, url);
  const running = [];
  for (let i = 0; i < replicas; i++) {
    running.push(
      await startCardIssue(ctx, url, {
        SCHEDULER_ENABLED: 'true',
        SCHEDULER_TICK_MS: '100',
        SCHEDULER_CREATED_DELAY_MS: '0',
        SCHEDULER_PROCESSING_DELAY_MS: '0',
      }),
    );
  }
  try {
    const started = Date.now();
    await withClient(url, (c) => seedCardIssues(session(c), bulkRequests(1, requests, 'created')));
    const stored = Date.now();
    let done = 0;
    while (done < requests) {
      if (Date.now() - stored > 300_000)
        throw new Error(`scheduler: only ${done} of ${requests} done after 5 minutes`);
      await sleep(200);
      done = await withClient(url, (c) =>
        count(
          c,
          `SELECT count(*)::int AS n FROM card_issue_requests WHERE status IN ('READY', 'PLASTIC_READY')`,
        ),
      );
    }
    const seconds = (Date.now() - stored) / 1000;
    log(
      `scheduler x${replicas}: ${requests} requests in ${seconds.toFixed(1)} s (storing them took ${((stored - started) / 1000).toFixed(1)} s)`,
    );
    return await withClient(url, async (c) => ({
      replicas,
      requests,
      seconds,
      schedulerMoves: await count(
        c,
        `SELECT count(*)::int AS n FROM card_issue_status_history WHERE source = 'scheduler'`,
      ),
      duplicates: await count(
        c,
        `SELECT count(*)::int AS n FROM (SELECT request_id, status FROM card_issue_status_history
           WHERE source = 'scheduler' GROUP BY request_id, status HAVING count(*) > 1) x`,
      ),
    }));
  } finally {
    for (const r of running) await r.stop();
  }
}

/** The scheduler with one replica, then with two. */
export async function schedulerBench(ctx: BenchContext): Promise<SchedulerResult[]> {
  log(`scheduler: ${ctx.settings.schedulerRows} CREATED requests to their final status`);
  return [await schedulerRun(ctx, 1), await schedulerRun(ctx, 2)];
}

async function count(c: Client, sql: string): Promise<number> {
  const { rows } = await c.query<{ n: number }>(sql);
  return rows[0].n;
}
