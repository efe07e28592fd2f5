import type { Result } from 'autocannon';
import { describeRow, runResultOf, sides, type Row } from './rows';

/**
 * What autocannon reported for 20 requests over 2 connections with a 1 s timeout to a server that
 * never answered the third and answered every fourth with 500 (the rest of the Result left out):
 * its `errors` counts the timeout as well as `timeouts` does, and `requests.total` only answers.
 */
const AUTOCANNON = {
  requests: { average: 9.5, total: 19, sent: 20 },
  latency: { p50: 0, p99: 15 },
  errors: 1,
  timeouts: 1,
  non2xx: 5,
} as unknown as Result;

describe('runResultOf', () => {
  const result = runResultOf(AUTOCANNON, 190, 84);

  it('takes req/s and latencies as autocannon gives them', () => {
    expect(result).toMatchObject({ rps: 9.5, p50: 0, p99: 15, rssMb: 84 });
  });

  it('counts the timed-out request and the 500s once each', () => {
    expect(result.errors).toBe(6);
  });

  it('divides the CPU time by the requests answered', () => {
    expect(result.requests).toBe(19);
    expect(result.cpuMsPerRequest).toBe(10);
  });

  it('does not divide by zero when nothing was answered', () => {
    const none = {
      ...AUTOCANNON,
      requests: { average: 0, total: 0, sent: 2 },
    } as unknown as Result;
    expect(runResultOf(none, 40, 80).cpuMsPerRequest).toBe(40);
  });
});

describe('a row', () => {
  const side = (rps: number, errors: number) => ({
    rps,
    p50: 1,
    p99: 2,
    errors,
    rssMb: 90,
    cpuMsPerRequest: 1,
    requests: rps,
  });
  const row: Row = {
    scenario: 'POST /api/v1/card-issue (VIRTUAL, self)',
    connections: 50,
    service: side(300, 1),
    baseline: side(1000, 0),
    baselineUserGets: side(500, 2),
  };

  it('shows a figure of each side it measured, in order', () => {
    expect(sides(row, (r) => String(r.errors))).toBe('1 / 0 / 2');
    expect(sides({ ...row, baselineUserGets: undefined }, (r) => String(r.errors))).toBe('1 / 0');
  });

  it('is logged with both ratios', () => {
    expect(describeRow(row)).toBe(
      'POST /api/v1/card-issue (VIRTUAL, self) c=50: service 300 req/s p99 2.0 ms, ' +
        'baseline 1000 req/s, ratio 0.30, baseline with user GET 500 req/s, ratio 0.60, errors 1 / 0 / 2',
    );
  });
});
