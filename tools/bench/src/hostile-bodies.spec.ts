import { hostileBodiesPassed, probeFigures, type HostileBodiesRow } from './hostile-bodies';

const row = (over: Partial<HostileBodiesRow>): HostileBodiesRow => ({
  service: 'card-issue',
  body: '90,000 unknown keys',
  bodyKb: 956,
  statuses: { 400: 40 },
  slowestPostMs: 80,
  probes: probeFigures([5, 6, 7]),
  ...over,
});

describe('hostile bodies judgement', () => {
  it('reads p50, p99 and the slowest of the probe times', () => {
    const times = Array.from({ length: 100 }, (_, i) => i + 1).reverse();
    expect(probeFigures(times)).toEqual({ count: 100, p50: 51, p99: 100, max: 100 });
    expect(probeFigures([])).toEqual({ count: 0, p50: 0, p99: 0, max: 0 });
  });

  it('passes below 100 ms and fails at it', () => {
    expect(hostileBodiesPassed([row({ probes: probeFigures([99.9]) })])).toBe(true);
    expect(hostileBodiesPassed([row({ probes: probeFigures([3, 100]) })])).toBe(false);
  });

  it('fails when a body was not refused with 400', () => {
    expect(hostileBodiesPassed([row({ statuses: { 400: 39, 500: 1 } })])).toBe(false);
    expect(hostileBodiesPassed([row({ statuses: { 413: 1 } })])).toBe(false);
  });

  it('judges only the rows under load, not the probes alone', () => {
    const quiet = row({ body: 'none (probes alone)', statuses: {}, probes: probeFigures([150]) });
    expect(hostileBodiesPassed([quiet, row({})])).toBe(true);
  });
});
