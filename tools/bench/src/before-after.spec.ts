import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAfterRows, beforeAfterSettings, beforeBundle } from './before-after';
import { beforeAfterTable } from './report';
import type { RunResult } from './rows';

const run = (cpuMsPerRequest: number, rps = 100): RunResult => ({
  rps,
  p50: 5,
  p99: 20,
  errors: 0,
  rssMb: 100,
  cpuMsPerRequest,
  requests: 500,
});

describe('beforeAfterSettings', () => {
  it("are the overhead runs' 9 rounds of 1 s + 5 s unless set", () => {
    expect(beforeAfterSettings({})).toEqual({ rounds: 9, warmupS: 1, durationS: 5 });
  });

  it('take BENCH_ROUNDS, BENCH_WARMUP_S and BENCH_DURATION_S where set, below the defaults too', () => {
    const env = { BENCH_ROUNDS: '4', BENCH_WARMUP_S: '2', BENCH_DURATION_S: '3' };
    expect(beforeAfterSettings(env)).toEqual({ rounds: 4, warmupS: 2, durationS: 3 });
  });

  it('refuse what is not a positive number', () => {
    expect(() => beforeAfterSettings({ BENCH_ROUNDS: 'many' })).toThrow(/BENCH_ROUNDS=many/);
    expect(() => beforeAfterSettings({ BENCH_DURATION_S: '0' })).toThrow(/BENCH_DURATION_S=0/);
  });
});

describe('beforeBundle', () => {
  let dist: string;

  beforeAll(() => {
    dist = mkdtempSync(join(tmpdir(), 'bench-before-'));
    mkdirSync(join(dist, 'apps', 'card-issue'), { recursive: true });
    writeFileSync(join(dist, 'apps', 'card-issue', 'main.js'), '');
  });

  afterAll(() => rmSync(dist, { recursive: true, force: true }));

  it("is the card-issue bundle of BENCH_BEFORE_DIST's dist/", () => {
    expect(beforeBundle({ BENCH_BEFORE_DIST: dist })).toBe(
      join(dist, 'apps', 'card-issue', 'main.js'),
    );
  });

  it('is asked for when BENCH_BEFORE_DIST is not set', () => {
    expect(() => beforeBundle({})).toThrow(/set BENCH_BEFORE_DIST/);
  });

  it('is refused where the dist has no card-issue bundle', () => {
    expect(() => beforeBundle({ BENCH_BEFORE_DIST: join(dist, 'apps') })).toThrow(
      /no .*apps\/apps\/card-issue\/main\.js/,
    );
  });
});

describe('the before/after rows', () => {
  // runs[scenario][before, after][round]: the POST 10 % dearer after in every round, the GET
  // cheaper in three rounds of four; round 2 was slow for both bundles alike.
  const runs = [
    [
      [run(2), run(4), run(2), run(2)],
      [run(2.2), run(4.4), run(2.2), run(2.2)],
    ],
    [
      [run(0.4, 2000), run(0.8, 1000), run(0.4, 2000), run(0.4, 2000)],
      [run(0.38, 2100), run(0.76, 1050), run(0.38, 2100), run(0.44, 1900)],
    ],
  ];
  const rows = beforeAfterRows(['POST', 'GET'], 50, runs);

  it('give the CPU per request of each bundle over all its rounds and the change', () => {
    expect(rows[0].before.cpuMsPerRequest).toBe(2.5);
    expect(rows[0].after.cpuMsPerRequest).toBeCloseTo(2.75, 12);
    expect(rows[0].change).toBeCloseTo(0.1, 12);
  });

  it("give the rounds' spread paired by round, so a slow round for both does not widen it", () => {
    expect(rows[0].changeSpread[0]).toBeCloseTo(0.1, 12);
    expect(rows[0].changeSpread[1]).toBeCloseTo(0.1, 12);
    // GET: -5 %, -5 %, -5 %, +10 % -> quartiles -5 % and (-5 % + 0.25 * 15 %) = -1.25 %.
    expect(rows[1].changeSpread[0]).toBeCloseTo(-0.05, 12);
    expect(rows[1].changeSpread[1]).toBeCloseTo(-0.0125, 12);
  });

  it('are printed as CPU ms before and after, the change and the spread', () => {
    const printed = beforeAfterTable({
      bundle: '/builds/old/apps/card-issue/main.js',
      settings: { rounds: 4, warmupS: 1, durationS: 5 },
      rows,
    }).split('\n');
    expect(printed[0]).toMatch(
      /^CPU per request: before \/builds\/old\/apps\/card-issue\/main\.js, /,
    );
    expect(printed.slice(2, 4)).toEqual([
      '| scenario | conns | CPU ms per request before | after | change | round spread | req/s before / after | p99 ms before / after | errors before / after |',
      '|---|---|---|---|---|---|---|---|---|',
    ]);
    expect(printed[4]).toBe(
      '| POST | 50 | 2.500 | 2.750 | +10.0 % | +10.0 % to +10.0 % | 100 / 100 | 20.0 / 20.0 | 0 / 0 |',
    );
    expect(printed[5]).toMatch(
      /^\| GET \| 50 \| 0\.500 \| 0\.490 \| -2\.0 % \| -5\.0 % to -1\.3 % \|/,
    );
  });
});
