import { statusClass } from './http-metrics';
import { memoryLimitBytes, Metrics, sampled } from './metrics';

describe('statusClass', () => {
  it.each([
    [200, '2xx'],
    [201, '2xx'],
    [304, '3xx'],
    [404, '4xx'],
    [499, '4xx'],
    [503, '5xx'],
    [599, '5xx'],
  ])('%i is %s', (status, label) => expect(statusClass(status)).toBe(label));
});

describe('sampled', () => {
  it('shares one load between concurrent and repeated asks within its age', async () => {
    let loads = 0;
    const read = sampled(async () => ++loads, 60_000);
    expect(await Promise.all([read(), read(), read()])).toEqual([1, 1, 1]);
    expect(await read()).toBe(1);
    expect(loads).toBe(1);
  });

  it('loads again once its age is reached', async () => {
    let loads = 0;
    const read = sampled(async () => ++loads, 0);
    expect(await read()).toBe(1);
    expect(await read()).toBe(2);
  });

  it('gives null for a failed load (a gauge then shows NaN, not a stale value)', async () => {
    const read = sampled(() => Promise.reject(new Error('database down')), 0);
    expect(await read()).toBeNull();
  });
});

describe('Metrics', () => {
  it('keeps each instance in a registry of its own, with the process metrics only when enabled', async () => {
    const on = new Metrics({ enabled: true, host: '127.0.0.1', serviceName: 'a' });
    const off = new Metrics({ enabled: false, host: '127.0.0.1', serviceName: 'b' });
    on.counter({ name: 'things_total', help: 'things' }).inc(2);
    off.counter({ name: 'things_total', help: 'things' }).inc(5);
    expect(await on.scrape()).toContain('things_total 2');
    expect(await on.scrape()).toContain('process_cpu_user_seconds_total');
    expect(await off.scrape()).toContain('things_total 5');
    expect(await off.scrape()).not.toContain('process_cpu_user_seconds_total');
    expect(await off.scrape()).not.toContain('process_memory_limit_bytes');
  });

  it('exports the memory limit the process runs under, +Inf without one', async () => {
    const on = new Metrics({ enabled: true, host: '127.0.0.1', serviceName: 'a' });
    const limit = memoryLimitBytes(process.constrainedMemory());
    expect(await on.scrape()).toContain(
      `process_memory_limit_bytes ${limit === Infinity ? '+Inf' : limit}\n`,
    );
  });
});

describe('memoryLimitBytes', () => {
  it.each([
    ['a container limit of 512Mi', 536_870_912, 536_870_912],
    ['cgroup v2 without a limit ("max", 2^64 - 1)', 2 ** 64, Infinity],
    ['cgroup v1 without a limit (PAGE_COUNTER_MAX pages)', 9_223_372_036_854_771_712, Infinity],
    ['unknown (0)', 0, Infinity],
  ])('%s: %d -> %d', (_, constrained, limit) => expect(memoryLimitBytes(constrained)).toBe(limit));
});
