import { createUser, selfVirtual } from '@bank/card-issue/testing';
import { BenchContext, log, sleep } from './context';
import { createDatabase, migrateCardIssue, startCardIssue, withClient } from './infra';
import { percentile } from './stats';

export interface OutboxStormResult {
  clients: number;
  busyRequests: number;
  seconds: number;
  patches: number;
  patchErrors: number;
  /** Requests created during the storm and how long their operation took to appear, ms. */
  probes: number;
  lagP50Ms: number;
  lagP99Ms: number;
  lagMaxMs: number;
  /** From the end of the storm until every busy request's operation holds its latest status. */
  settleMs: number;
  /** Status messages written, and how many were superseded instead of sent. */
  statusMessages: number;
  superseded: number;
  /** Messages still PENDING or DEAD once every request settled (must be 0). */
  left: number;
}

const STATUSES = ['PROCESSING', 'FAILED', 'CREATED', 'READY'];

async function send(url: string, method: string, body: unknown): Promise<Response> {
  return fetch(url, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/**
 * The status storm of issue 13: BENCH_STORM_CLIENTS (20) clients PATCHing BENCH_STORM_REQUESTS
 * (10) requests for BENCH_STORM_S (20) seconds against one card-issue process with its outbox on
 * (default settings, the operation service being its own reference one over HTTP). Meanwhile a
 * probe creates another request every 250 ms and times how long its create takes to reach the
 * operation service (polled every 20 ms): the delivery lag of a request nobody storms.
 */
export async function outboxStormBench(ctx: BenchContext): Promise<OutboxStormResult> {
  const clients = Number(process.env.BENCH_STORM_CLIENTS ?? 20);
  const busyRequests = Number(process.env.BENCH_STORM_REQUESTS ?? 10);
  const seconds = Number(process.env.BENCH_STORM_S ?? 20);
  log(`outbox storm: ${clients} clients PATCHing ${busyRequests} requests for ${seconds} s`);
  const url = await createDatabase(ctx, 'storm');
  migrateCardIssue(ctx, url);
  const service = await startCardIssue(ctx, url, { OUTBOX_ENABLED: 'true' });
  try {
    const api = `${service.url}/api/v1/card-issue`;
    const owner = await createUser(service.url, {}, ctx.secret);
    const create = async (): Promise<string> =>
      ((await (await send(api, 'POST', selfVirtual(owner))).json()) as { requestId: string })
        .requestId;
    const busy: string[] = [];
    for (let i = 0; i < busyRequests; i++) busy.push(await create());

    const operationOf = (requestId: string) =>
      withClient(url, async (c) => {
        const { rows } = await c.query<{ status: string }>(
          'SELECT status FROM operation_service.operations WHERE request_id = $1',
          [requestId],
        );
        return rows[0]?.status ?? null;
      });

    const until = Date.now() + seconds * 1000;
    let patches = 0;
    let patchErrors = 0;
    const storm = Promise.all(
      Array.from({ length: clients }, async (_, client) => {
        for (let i = 0; Date.now() < until; i++) {
          const res = await send(`${api}/${busy[client % busy.length]}/status`, 'PATCH', {
            status: STATUSES[i % STATUSES.length],
          }).catch(() => null);
          patches++;
          if (!res || res.status !== 200) patchErrors++;
          await res?.arrayBuffer();
        }
      }),
    );
    const lags: number[] = [];
    const probes: Promise<void>[] = [];
    while (Date.now() < until - 1_000) {
      probes.push(
        (async () => {
          const id = await create();
          const sent = Date.now();
          while ((await operationOf(id)) === null) {
            if (Date.now() - sent > 120_000) throw new Error(`probe ${id} not delivered in 120 s`);
            await sleep(20);
          }
          lags.push(Date.now() - sent);
        })(),
      );
      await sleep(250);
    }
    await storm;
    const ended = Date.now();
    await Promise.all(probes);
    for (const id of busy) {
      for (;;) {
        const record = (await (await fetch(`${api}/${id}`)).json()) as { status: string };
        if ((await operationOf(id)) === record.status) break;
        if (Date.now() - ended > 120_000) throw new Error(`${id} not settled in 120 s`);
        await sleep(50);
      }
    }
    const settleMs = Date.now() - ended;
    const counts = await withClient(url, async (c) => {
      const { rows } = await c.query<{ all: number; superseded: number; left: number }>(
        `SELECT count(*) FILTER (WHERE type = 'operation.status')::int AS all,
                count(*) FILTER (WHERE state = 'SUPERSEDED')::int AS superseded,
                count(*) FILTER (WHERE state IN ('PENDING', 'DEAD'))::int AS left
         FROM outbox_messages`,
      );
      return rows[0];
    });
    const sorted = [...lags].sort((a, b) => a - b);
    const result: OutboxStormResult = {
      clients,
      busyRequests,
      seconds,
      patches,
      patchErrors,
      probes: lags.length,
      lagP50Ms: percentile(sorted, 50),
      lagP99Ms: percentile(sorted, 99),
      lagMaxMs: sorted.at(-1) ?? 0,
      settleMs,
      statusMessages: counts.all,
      superseded: counts.superseded,
      left: counts.left,
    };
    log(`outbox storm: ${JSON.stringify(result)}`);
    return result;
  } finally {
    await service.stop();
  }
}
