/**
 * Reproduces the slow graceful shutdown of card-issue (docs/benchmarks.md, Findings 1):
 * starts the built service, loads it for 3 s at 50 connections, sends SIGTERM and times the
 * exit — after POST /api/v1/card-issue, after GET /api/health, and after POSTs then 10 s idle.
 *
 *   npx nx build card-issue
 *   SWC_NODE_PROJECT=tools/bench/tsconfig.json node -r @swc-node/register tools/bench/src/shutdown-check.ts
 *
 * Uses a throw-away database bench_shutdown_<run id> on BENCH_ADMIN_URL (default
 * 127.0.0.1:5432), dropped after.
 */
import { createUser } from '@bank/card-issue/testing';
import { BenchContext, sleep } from './context';
import { createPayloads } from './fixtures';
import { createDatabase, runWithContext, startCardIssue } from './infra';
import { load } from './load';
import { Scenario } from './scenarios';

type Mode = 'POST' | 'GET' | 'POST, then 10 s idle';

/** Seconds from SIGTERM to exit of a fresh card-issue process after 3 s of load. */
async function secondsToExit(ctx: BenchContext, url: string, mode: Mode): Promise<number> {
  const service = await startCardIssue(ctx, url);
  const owner = await createUser(service.url, {}, ctx.secret);
  const body = createPayloads().virtualCardForSelf(owner);
  const scenario: Scenario =
    mode === 'GET'
      ? { name: mode, service: 'card', method: 'GET', path: () => '/api/health' }
      : {
          name: mode,
          service: 'card',
          method: 'POST',
          path: () => '/api/v1/card-issue',
          body: () => body,
        };
  await load(service, scenario, 50, 3);
  if (mode === 'POST, then 10 s idle') await sleep(10_000);
  const signalled = Date.now();
  await service.stop('SIGTERM');
  return (Date.now() - signalled) / 1000;
}

async function main(ctx: BenchContext): Promise<void> {
  const url = await createDatabase(ctx, 'shutdown');
  for (const mode of ['POST', 'GET', 'POST, then 10 s idle'] as const)
    console.log(
      `${mode}: exit ${(await secondsToExit(ctx, url, mode)).toFixed(1)} s after SIGTERM`,
    );
}

runWithContext(main);
