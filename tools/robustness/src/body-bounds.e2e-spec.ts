import {
  createTestDatabase,
  figureDatabase,
  FiguresTable,
  formatMs,
  runsExclusively,
  sleep,
  TestDatabase,
  TestServiceProcess,
} from '@bank/shared/testing';
import { spawnCardIssue } from '@bank/card-issue/testing';
import { spawnClientRegistration } from '@bank/client-registration/testing';
import { HttpResult } from './support/http';
import { ErrorShape, errorShapeProblem } from './support/shapes';

/**
 * Bodies within the 1 MiB limit built to make validation work hard: 90,000 unknown keys
 * (979 KB), and 100,000 levels of nesting. Four at once, while a probe asks every 20 ms: each is
 * refused with a short 400 before validation, and the probe keeps answering at once. (Before
 * the bound, one such body held the event loop about 5 s and was answered with a 3.9 MB list of
 * its keys; four kept the probes waiting 13-19 s.)
 */
const AT_ONCE = 4;
/** Far above what a probe takes when nothing blocks the loop, far below what the bodies took. */
const PROBE_BOUND_MS = 500;

const WIDE = `{${Array.from({ length: 90_000 }, (_, i) => `"k${i}":0`).join(',')}}`;
const DEEP = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;

interface Target {
  service: string;
  shape: ErrorShape;
  path: string;
  spawn(databaseUrl: string): Promise<TestServiceProcess>;
}

const TARGETS: Target[] = [
  {
    service: 'card-issue',
    shape: 'card-issue',
    path: '/api/v1/card-issue',
    spawn: (DATABASE_URL) => spawnCardIssue({ DATABASE_URL, SCHEDULER_ENABLED: 'false' }),
  },
  {
    service: 'client-registration',
    shape: 'registration',
    path: '/api/clients',
    spawn: (DATABASE_URL) => spawnClientRegistration({ DATABASE_URL }),
  },
];

async function post(url: string, body: string): Promise<HttpResult & { ms: number }> {
  const began = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: Object.fromEntries(res.headers),
    text,
    body: JSON.parse(text) as unknown,
    ms: performance.now() - began,
  };
}

const figures = new FiguresTable('Bodies built to make validation work');
afterAll(() => figures.print());

describe.each(TARGETS)('bodies over the bounds: $service', (target) => {
  let db: TestDatabase;
  let child: TestServiceProcess;

  beforeAll(async () => {
    db = await createTestDatabase(`robust_bounds_${target.service.replace('-', '_')}`);
    child = await target.spawn(db.url);
  }, 120_000);
  afterAll(async () => {
    await child?.stop('SIGKILL');
    await db?.drop();
  });

  it.each([
    ['90,000 unknown keys', WIDE],
    ['100,000 levels of nesting', DEEP],
  ])(
    'refuses %s, four at once, while the probe answers at once',
    async (name, body) => {
      expect(body.length).toBeLessThan(1024 * 1024);
      const probes: number[] = [];
      let sending = true;
      const probing = (async () => {
        while (sending) {
          const began = performance.now();
          const res = await fetch(`${child.url}/api/health/live`);
          await res.text();
          probes.push(performance.now() - began);
          await sleep(20);
        }
      })();
      const answers = await Promise.all(
        Array.from({ length: AT_ONCE }, () => post(`${child.url}${target.path}`, body)),
      );
      sending = false;
      await probing;

      for (const answer of answers) {
        expect({ status: answer.status, problem: errorShapeProblem(answer, target.shape) }).toEqual(
          {
            status: 400,
            problem: null,
          },
        );
        expect(answer.text.length).toBeLessThan(1_000);
      }
      const slowestProbe = Math.max(...probes);
      expect(slowestProbe).toBeLessThan(PROBE_BOUND_MS);
      figures.add({
        scenario: `${target.service}: ${AT_ONCE} bodies of ${name} (${Math.round(body.length / 1024)} KB) at once`,
        database: figureDatabase(db),
        sent: `${AT_ONCE} POSTs, a probe every 20 ms`,
        answered: `${AT_ONCE} x 400 (${answers[0].text.length} B) in at most ${formatMs(Math.max(...answers.map((a) => a.ms)))}`,
        stored: 'nothing',
        lost: 0,
        orphans: 0,
        recovered: `slowest of ${probes.length} probes ${formatMs(slowestProbe)}`,
      });
    },
    120_000,
  );
});

// Timed: never beside another heavy file when Jest runs two files at a time.
runsExclusively();
