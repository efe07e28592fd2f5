import { sendJson } from './support/http';
import { eventually, RunningTestService, sleep } from '@bank/shared/testing';
import {
  aUser,
  BACKGROUND_OFF,
  createUser,
  SECRET,
  selfPlastic,
  selfVirtual,
  startCardIssue,
} from '@bank/card-issue/testing';
import { registration, startClientRegistration } from '@bank/client-registration/testing';
import { assertClientError } from './support/shapes';

const PARALLEL = 20;
const API = '/api/v1/card-issue';

describe('races: card-issue', () => {
  let s: RunningTestService;
  let owner: string;

  beforeAll(async () => {
    s = await startCardIssue({ label: 'robust_races_card', env: { ...BACKGROUND_OFF } });
    owner = await createUser(s.url);
  });
  afterAll(async () => {
    await s?.close();
  });

  it('parallel registrations of one passport in the user service: one 201, the rest 409, one row', async () => {
    const user = aUser();
    const passport = user.passportData as { series: string; number: string };
    const results = await Promise.all(
      Array.from({ length: PARALLEL }, () =>
        sendJson(`${s.url}/user-api/api/v1/users`, 'POST', user, { 'x-secret': SECRET }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, ...Array<number>(PARALLEL - 1).fill(409)]);
    for (const r of results.filter((x) => x.status === 409)) assertClientError(r, 'card-issue');
    const [{ n }] = await s.dataSource.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM user_service.users WHERE passport_series = $1 AND passport_number = $2`,
      [passport.series, passport.number],
    );
    expect(n).toBe(1);
  });

  it('parallel POSTs with one Idempotency-Key: one request stored, every answer the same', async () => {
    const before = await count(s, 'card_issue_requests');
    const body = selfVirtual(owner);
    const results = await Promise.all(
      Array.from({ length: PARALLEL }, () =>
        sendJson(`${s.url}${API}`, 'POST', body, { 'idempotency-key': 'race-key-1' }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array<number>(PARALLEL).fill(201));
    const ids = new Set(results.map((r) => (r.body as { requestId: string }).requestId));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(
      PARALLEL - 1,
    );
    expect(await count(s, 'card_issue_requests')).toBe(before + 1);
  });

  it('parallel POSTs with one Idempotency-Key and different bodies: one stored, the others 409', async () => {
    const before = await count(s, 'card_issue_requests');
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        sendJson(
          `${s.url}${API}`,
          'POST',
          selfVirtual(owner, {
            cardHolder: {
              userId: owner,
              nameless: false,
              embossedName: `NAME ${'I'.repeat(i + 1)}`,
            },
          }),
          {
            'idempotency-key': 'race-key-2',
          },
        ),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, ...Array<number>(9).fill(409)]);
    for (const r of results.filter((x) => x.status === 409)) assertClientError(r, 'card-issue');
    expect(await count(s, 'card_issue_requests')).toBe(before + 1);
  });
});

describe('races: client-registration', () => {
  let s: RunningTestService;
  beforeAll(async () => {
    s = await startClientRegistration({ label: 'robust_races_reg' });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('parallel registrations of one passport: one 201, the rest 409 in Russian, one row', async () => {
    const body = registration();
    const results = await Promise.all(
      Array.from({ length: PARALLEL }, () => sendJson(`${s.url}/api/clients`, 'POST', body)),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, ...Array<number>(PARALLEL - 1).fill(409)]);
    for (const r of results.filter((x) => x.status === 409)) assertClientError(r, 'registration');
    expect(await count(s, 'clients')).toBe(1);
  });

  it('parallel passport updates of two clients to one passport: one wins, the other 409', async () => {
    const a = await sendJson(`${s.url}/api/clients`, 'POST', registration());
    const b = await sendJson(`${s.url}/api/clients`, 'POST', registration());
    const passport = registration().passportData as object;
    const results = await Promise.all(
      [a, b, a, b].map((c) =>
        sendJson(`${s.url}/api/clients/${(c.body as { id: string }).id}/passport`, 'PUT', {
          passportData: passport,
        }),
      ),
    );
    const statuses = results.map((r) => r.status);
    // Each client may take it (or see it already taken by itself: 200); never both clients.
    const winners = new Set(
      results.filter((r) => r.status === 200).map((r) => (r.body as { id: string }).id),
    );
    expect(winners.size).toBe(1);
    expect(statuses.filter((x) => x === 409).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((x) => x === 200 || x === 409)).toBe(true);
  });
});

/** Eight PATCHes at a time, on both databases (PGlite used to hang here: see ProtocolQueue). */
const PATCH_WORKERS = 8;

describe('races: PATCH against the scheduler', () => {
  let s: RunningTestService;
  let owner: string;

  beforeAll(async () => {
    s = await startCardIssue({
      label: 'robust_races_sched',
      env: {
        ...BACKGROUND_OFF,
        SCHEDULER_ENABLED: 'true',
        SCHEDULER_TICK_MS: '100',
        SCHEDULER_CREATED_DELAY_MS: '150',
        SCHEDULER_PROCESSING_DELAY_MS: '150',
        SCHEDULER_BATCH_SIZE: '7',
      },
    });
    owner = await createUser(s.url);
  });
  afterAll(async () => {
    await s?.close();
  });

  it('leaves every history consistent: last entry == current status, no scheduler move applied twice', async () => {
    const ids: { id: string; formFactor: string }[] = [];
    for (let i = 0; i < 24; i++) {
      const plastic = i % 2 === 1;
      const body = plastic ? selfPlastic(owner, { toBranch: { id: '0001' } }) : selfVirtual(owner);
      const res = await sendJson(`${s.url}${API}`, 'POST', body);
      expect(res.status).toBe(201);
      ids.push({
        id: (res.body as { requestId: string }).requestId,
        formFactor: plastic ? 'PLASTIC' : 'VIRTUAL',
      });
    }
    // Three seconds of PATCHes, PATCH_WORKERS at a time, while the scheduler ticks every 100 ms.
    const deadline = Date.now() + 3_000;
    let patches = 0;
    const worker = async (w: number) => {
      for (let k = w; Date.now() < deadline; k += 8) {
        const { id, formFactor } = ids[k % ids.length];
        const choices = [
          'CREATED',
          'PROCESSING',
          'FAILED',
          formFactor === 'VIRTUAL' ? 'READY' : 'PLASTIC_READY',
        ];
        const res = await sendJson(`${s.url}${API}/${id}/status`, 'PATCH', {
          status: choices[(k >> 3) % choices.length],
        });
        expect(res.status).toBe(200);
        patches++;
        await sleep(k % 3 === 0 ? 0 : 20);
      }
    };
    await Promise.all(Array.from({ length: PATCH_WORKERS }, (_, w) => worker(w)));
    // Let the scheduler finish: nothing left for it to move (every request final or PATCHed away).
    await eventually(async () => {
      const [{ open }] = await s.dataSource.query<{ open: number }[]>(
        `SELECT count(*)::int AS open FROM card_issue_requests
          WHERE request_id = ANY($1) AND status IN ('CREATED', 'PROCESSING')`,
        [ids.map((x) => x.id)],
      );
      return open === 0;
    }, 30_000);
    expect(patches).toBeGreaterThan(50);

    const rows = await s.dataSource.query<
      {
        id: string;
        status: string;
        seq: number;
        formFactor: string;
        history: { status: string; source: string }[];
        outbox: number;
      }[]
    >(
      `SELECT r.request_id AS id, r.status, r.status_sequence AS seq, r.form_factor AS "formFactor",
              (SELECT json_agg(json_build_object('status', h.status, 'source', h.source) ORDER BY h.id)
                 FROM card_issue_status_history h WHERE h.request_id = r.request_id) AS history,
              (SELECT count(*)::int FROM outbox_messages o WHERE o.request_id = r.request_id) AS outbox
         FROM card_issue_requests r WHERE r.request_id = ANY($1)`,
      [ids.map((x) => x.id)],
    );
    expect(rows).toHaveLength(ids.length);
    let schedulerMoves = 0;
    for (const row of rows) {
      const history = row.history;
      expect({ id: row.id, last: history[history.length - 1].status }).toEqual({
        id: row.id,
        last: row.status,
      });
      // One history entry and one outbox message per change; the sequence counts them.
      expect({ id: row.id, seq: row.seq, outbox: row.outbox }).toEqual({
        id: row.id,
        seq: history.length,
        outbox: history.length,
      });
      for (let i = 1; i < history.length; i++) {
        const [prev, next] = [history[i - 1], history[i]];
        if (next.source !== 'scheduler') continue;
        schedulerMoves++;
        // A scheduler move is only ever CREATED -> PROCESSING or PROCESSING -> the final status,
        // so a duplicate (e.g. PROCESSING -> PROCESSING) or a move from a PATCHed status breaks this.
        const final = row.formFactor === 'VIRTUAL' ? 'READY' : 'PLASTIC_READY';
        expect({ id: row.id, move: `${prev.status}->${next.status}` }).toEqual({
          id: row.id,
          move: expect.stringMatching(new RegExp(`^(CREATED->PROCESSING|PROCESSING->${final})$`)),
        });
      }
    }
    // The race was real: the scheduler moved requests during the PATCHes.
    expect(schedulerMoves).toBeGreaterThan(0);
  }, 60_000);
});

async function count(s: RunningTestService, table: string): Promise<number> {
  const [{ n }] = await s.dataSource.query<{ n: number }[]>(
    `SELECT count(*)::int AS n FROM ${table}`,
  );
  return n;
}
