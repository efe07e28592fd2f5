import type { RunResult } from './rows';
import {
  combine,
  compareRounds,
  median,
  percentile,
  pooledCpuMsPerRequest,
  quantile,
} from './stats';

const run = (fields: Partial<RunResult>): RunResult => ({
  rps: 100,
  p50: 5,
  p99: 20,
  errors: 0,
  rssMb: 100,
  cpuMsPerRequest: 1,
  requests: 500,
  ...fields,
});

describe('median', () => {
  it('is the middle value of an odd count, whatever the order', () => {
    expect(median([5, 1, 3])).toBe(3);
  });

  it('is the mean of the two middle values of an even count', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('leaves its argument unsorted', () => {
    const values = [3, 1, 2];
    median(values);
    expect(values).toEqual([3, 1, 2]);
  });
});

describe('quantile', () => {
  it('gives the ends at 0 and 1', () => {
    expect(quantile([3, 9, 1], 0)).toBe(1);
    expect(quantile([3, 9, 1], 1)).toBe(9);
  });

  it('interpolates linearly between the two nearest ranks', () => {
    // (4 - 1) * 0.25 = 0.75 of the way from the first value to the second
    expect(quantile([4, 1, 3, 2], 0.25)).toBe(1.75);
    expect(quantile([4, 1, 3, 2], 0.75)).toBe(3.25);
  });

  it('is the median at 0.5', () => {
    expect(quantile([4, 1, 3, 2], 0.5)).toBe(median([4, 1, 3, 2]));
  });

  it('is the one value of a single round', () => {
    expect(quantile([7], 0.25)).toBe(7);
  });
});

describe('percentile', () => {
  const sorted = Array.from({ length: 100 }, (_, i) => i + 1);

  it('takes the value at floor(p % of the count)', () => {
    expect(percentile(sorted, 50)).toBe(51);
    expect(percentile(sorted, 99)).toBe(100);
    expect(percentile([10, 20, 30, 40], 50)).toBe(30);
    expect(percentile([10, 20, 30], 50)).toBe(20);
  });

  it('stays within the values at 100 and is 0 without values', () => {
    expect(percentile(sorted, 100)).toBe(100);
    expect(percentile([], 99)).toBe(0);
  });
});

describe('combine', () => {
  const rounds = [
    run({ rps: 100, p99: 30, errors: 1, rssMb: 120, cpuMsPerRequest: 1, requests: 400 }),
    run({ rps: 300, p99: 10, errors: 0, rssMb: 180, cpuMsPerRequest: 3, requests: 600 }),
    run({ rps: 200, p99: 90, errors: 2, rssMb: 150, cpuMsPerRequest: 2, requests: 500 }),
  ];

  it('takes the mean or the median of rates and latencies', () => {
    expect(combine(rounds, 'mean')).toMatchObject({ rps: 200, p99: 130 / 3 });
    expect(combine(rounds, 'median')).toMatchObject({ rps: 200, p99: 30, cpuMsPerRequest: 2 });
  });

  it('sums errors and requests and keeps the peak RSS', () => {
    expect(combine(rounds, 'median')).toMatchObject({ errors: 3, requests: 1500, rssMb: 180 });
  });
});

describe('pooledCpuMsPerRequest', () => {
  it('is the total CPU over the total requests, not the mean of the runs', () => {
    // 100 requests at 3 ms and 300 at 1 ms: 600 ms over 400 requests (the runs' mean would be 2).
    const runs = [
      run({ cpuMsPerRequest: 3, requests: 100 }),
      run({ cpuMsPerRequest: 1, requests: 300 }),
    ];
    expect(pooledCpuMsPerRequest(runs)).toBe(1.5);
  });

  it('is 0 for runs that answered nothing', () => {
    expect(pooledCpuMsPerRequest([run({ cpuMsPerRequest: 0, requests: 0 })])).toBe(0);
  });
});

describe('compareRounds', () => {
  // runs[configuration][round]; the first configuration is the reference.
  const reference = [
    run({ cpuMsPerRequest: 1, requests: 100, rps: 20 }),
    run({ cpuMsPerRequest: 2, requests: 100, rps: 10 }),
    run({ cpuMsPerRequest: 1, requests: 100, rps: 20 }),
    run({ cpuMsPerRequest: 2, requests: 100, rps: 10 }),
  ];
  const other = [
    run({ cpuMsPerRequest: 1.1, requests: 100, rps: 18 }),
    run({ cpuMsPerRequest: 2.4, requests: 100, rps: 8 }),
    run({ cpuMsPerRequest: 1.3, requests: 100, rps: 15 }),
    run({ cpuMsPerRequest: 2.2, requests: 100, rps: 9 }),
  ];
  const [ref, compared] = compareRounds([reference, other]);

  it('compares the reference with itself as 1 in every round', () => {
    expect(ref.ratio).toBe(1);
    expect(ref.ratioQuartiles).toEqual([1, 1]);
  });

  it('pools each configuration over its rounds and takes the median req/s', () => {
    expect(ref.result.cpuMsPerRequest).toBe(1.5);
    expect(compared.result.cpuMsPerRequest).toBeCloseTo(1.75, 12);
    expect(compared.result.rps).toBe(12);
    expect(compared.result.requests).toBe(400);
  });

  it('is the ratio of the pooled CPU per request', () => {
    expect(compared.ratio).toBeCloseTo(1.75 / 1.5, 12);
  });

  it('pairs the rounds for the quartiles: each round against the reference in the same round', () => {
    // Round ratios 1.1, 1.2, 1.3, 1.1 -> sorted 1.1, 1.1, 1.2, 1.3. Unpaired (every run against
    // the reference's pooled 1.5) they would be 0.73 to 1.6.
    const [q1, q3] = compared.ratioQuartiles;
    expect(q1).toBeCloseTo(1.1, 12);
    expect(q3).toBeCloseTo(1.225, 12);
  });
});
