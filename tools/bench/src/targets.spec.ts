import type { Row, RunResult } from './rows';
import { LOAD_TARGETS, loadTargets, OVERHEAD_TARGET, overheadVerdict } from './targets';

const run = (rps: number, p99 = 10, errors = 0): RunResult => ({
  rps,
  p50: p99 / 2,
  p99,
  errors,
  rssMb: 100,
  cpuMsPerRequest: 1,
  requests: rps * 5,
});

const POST = 'POST /api/v1/card-issue (VIRTUAL, self)';
const GET_BY_ID = 'GET /api/v1/card-issue/{id}';
const GET_BY_CLIENT = 'GET /api/v1/card-issue/client/{clientId} (10 requests)';

function row(scenario: string, service: RunResult, baseline: RunResult, extra: Partial<Row> = {}) {
  return { scenario, connections: 50, service, baseline, ...extra };
}

describe('the load targets', () => {
  describe('card-issue POST: at least 0.6 of the baseline with the user GET', () => {
    it('is met at exactly 0.6', () => {
      const judged = loadTargets(row(POST, run(60), run(200), { baselineUserGets: run(100) }));
      expect(judged).toBe('ratio with user GET ok (>= 0.6)');
    });

    it('is missed just below 0.6', () => {
      const judged = loadTargets(row(POST, run(59.99), run(60), { baselineUserGets: run(100) }));
      expect(judged).toBe('RATIO WITH USER GET MISSED (< 0.6)');
    });

    it('judges the like-for-like ratio, not the one against the SQL-only baseline', () => {
      // 0.3 of the SQL-only baseline, 0.75 of the one that GETs its users as the service does.
      const judged = loadTargets(row(POST, run(75), run(250), { baselineUserGets: run(100) }));
      expect(judged).toBe('ratio with user GET ok (>= 0.6)');
    });

    it('is not judged without the baseline with the user GET', () => {
      expect(loadTargets(row(POST, run(10), run(100)))).toBe('');
    });
  });

  describe('GET by id: at least 0.85 of its baseline, p99 under 50 ms at 50 connections', () => {
    it('is met at exactly 0.85 and just under 50 ms', () => {
      expect(loadTargets(row(GET_BY_ID, run(85, 49.9), run(100)))).toBe(
        'ratio ok (>= 0.85); p99 ok (< 50 ms)',
      );
    });

    it('misses the ratio just below 0.85', () => {
      expect(loadTargets(row(GET_BY_ID, run(84.9), run(100)))).toBe(
        'RATIO MISSED (< 0.85); p99 ok (< 50 ms)',
      );
    });

    it('misses the p99 at exactly 50 ms', () => {
      expect(loadTargets(row(GET_BY_ID, run(90, 50), run(100)))).toBe(
        'ratio ok (>= 0.85); P99 MISSED (>= 50 ms)',
      );
    });

    it('judges the p99 of the service, not of the baseline', () => {
      expect(loadTargets(row(GET_BY_ID, run(90, 20), run(100, 80)))).toContain('p99 ok');
    });

    it('judges the p99 only at 50 connections', () => {
      const at100 = { ...row(GET_BY_ID, run(90, 120), run(100)), connections: 100 };
      expect(loadTargets(at100)).toBe('ratio ok (>= 0.85)');
    });

    it('judges the p99 of every GET, the ratio of the GET by id only', () => {
      expect(loadTargets(row(GET_BY_CLIENT, run(10, 60), run(100)))).toBe('P99 MISSED (>= 50 ms)');
    });
  });

  it('flags errors of the service in any scenario', () => {
    expect(loadTargets(row('POST /api/clients', run(100, 10, 1), run(100)))).toBe('ERRORS');
    expect(loadTargets(row('POST /api/clients', run(100), run(100, 10, 3)))).toBe('');
  });

  it('are the figures the docs state', () => {
    expect(LOAD_TARGETS).toEqual({
      postRatioWithUserGets: 0.6,
      getByIdRatio: 0.85,
      getP99Ms: 50,
      getP99Connections: 50,
    });
  });
});

describe('the observability overhead target: at most 15 % of the CPU per request', () => {
  it('is the cost of metrics plus tracing at 10 %', () => {
    expect(OVERHEAD_TARGET).toEqual({ configuration: 'metrics on, tracing 10 %', maxCost: 0.15 });
  });

  it('is met at exactly 15 %', () => {
    expect(overheadVerdict(0.15, null)).toBe('CPU: ok (<= 15 %)');
  });

  it('is missed just above 15 %', () => {
    expect(overheadVerdict(0.1501, null)).toBe('CPU: MISSED (> 15 %)');
  });

  it('judges the instructions too where they were counted', () => {
    expect(overheadVerdict(0.05, 0.16)).toBe('CPU: ok (<= 15 %); instructions: MISSED (> 15 %)');
    expect(overheadVerdict(0.2, 0.15)).toBe('CPU: MISSED (> 15 %); instructions: ok (<= 15 %)');
  });

  it('counts a saving as met', () => {
    expect(overheadVerdict(-0.07, -0.01)).toBe('CPU: ok (<= 15 %); instructions: ok (<= 15 %)');
  });
});
