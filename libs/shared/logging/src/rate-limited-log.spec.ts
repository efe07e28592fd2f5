import { RateLimitedLog, RateLimitedLogLine } from './rate-limited-log';

describe('RateLimitedLog', () => {
  let lines: RateLimitedLogLine[];
  let log: RateLimitedLog;

  beforeEach(() => {
    jest.useFakeTimers();
    lines = [];
    log = new RateLimitedLog(10_000, (line) => lines.push(line));
  });
  afterEach(() => {
    log.flush();
    jest.useRealTimers();
  });

  it('writes the first occurrence at once and counts the rest of the interval in one line', () => {
    for (let i = 0; i < 1_000; i++) log.report('database connection', { i });
    expect(lines).toEqual([{ kind: 'database connection', detail: { i: 0 }, suppressed: 0 }]);
    jest.advanceTimersByTime(10_000);
    expect(lines).toEqual([
      { kind: 'database connection', detail: { i: 0 }, suppressed: 0 },
      { kind: 'database connection', detail: { i: 999 }, suppressed: 999 },
    ]);
  });

  it('keeps one line per interval while the failure lasts, and starts over after a quiet interval', () => {
    for (let second = 0; second < 30; second++) {
      log.report('k', {});
      log.report('k', {});
      jest.advanceTimersByTime(1_000);
    }
    // 60 occurrences in 30 s: the first, then one line per 10 s interval with its count.
    expect(lines.map((l) => l.suppressed)).toEqual([0, 19, 20, 20]);
    jest.advanceTimersByTime(10_000); // a quiet interval: nothing to report, the window ends
    expect(lines).toHaveLength(4);
    log.report('k', { again: true });
    expect(lines[4]).toEqual({ kind: 'k', detail: { again: true }, suppressed: 0 });
  });

  it('limits each kind on its own', () => {
    log.report('a', {});
    log.report('b', {});
    log.report('a', {});
    expect(lines.map((l) => l.kind)).toEqual(['a', 'b']);
  });

  it('flush writes the pending counts', () => {
    log.report('a', {});
    log.report('a', {});
    log.report('b', {});
    log.flush();
    expect(lines.map((l) => [l.kind, l.suppressed])).toEqual([
      ['a', 0],
      ['b', 0],
      ['a', 1],
    ]);
  });
});
