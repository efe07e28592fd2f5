import { FailureLog, FailureLogger } from './failure-log';

/** A known failure's kind: here, errors whose code is ECONNREFUSED are "the database is out of reach". */
const outageOf = (error: unknown) =>
  (error as { code?: string }).code === 'ECONNREFUSED' ? 'Database unavailable (connection)' : undefined;

const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('FailureLog', () => {
  let lines: { level: string; fields: Record<string, unknown>; message: string }[];
  let log: FailureLog;

  beforeEach(() => {
    jest.useFakeTimers();
    lines = [];
    const logger: FailureLogger = {
      error: (fields, message) => lines.push({ level: 'error', fields, message }),
    };
    log = new FailureLog(logger, 10_000, outageOf);
  });
  afterEach(() => {
    log.flush();
    jest.useRealTimers();
  });

  it('logs a known failure that repeats once per interval with the count, without a stack', () => {
    // A scheduler ticking every 100 ms during a 12 s outage.
    for (let tick = 0; tick < 120; tick++) {
      log.report('Scheduled work failed', refused(), { task: 'moves' });
      jest.advanceTimersByTime(100);
    }
    jest.advanceTimersByTime(10_000); // the last interval ends
    expect(lines.map((line) => line.message)).toEqual([
      'Scheduled work failed: Database unavailable (connection)',
      'Scheduled work failed: Database unavailable (connection): 99 more since the last line',
      'Scheduled work failed: Database unavailable (connection): 20 more since the last line',
    ]);
    expect(lines[0].fields).toEqual({
      kind: 'Database unavailable (connection)',
      error: 'connect ECONNREFUSED 127.0.0.1:5432',
      suppressed: 0,
      intervalMs: 10_000,
      task: 'moves',
    });
    expect(JSON.stringify(lines)).not.toContain('stack');
    expect(lines.map((line) => line.fields.err)).toEqual([undefined, undefined, undefined]);
  });

  it('logs an unexpected failure with its stack, once per interval per kind with the count', () => {
    const bug = () => new TypeError("Cannot read properties of undefined (reading 'id')");
    for (let i = 0; i < 50; i++) log.report('Scheduled work failed', bug());
    jest.advanceTimersByTime(10_000);
    expect(lines.map((line) => line.message)).toEqual([
      'Scheduled work failed',
      'Scheduled work failed: 49 more since the last line',
    ]);
    expect(lines[0].fields.err).toBeInstanceOf(TypeError);
    // The count line names the error; the stack was on the first.
    expect(lines[1].fields).toMatchObject({
      kind: "TypeError: Cannot read properties of undefined (reading 'id')",
      suppressed: 49,
    });
    expect(lines[1].fields.err).toBeUndefined();
  });

  it('keeps each title and each kind apart', () => {
    log.report('Scheduled work failed', refused());
    log.report('Outbox delivery round failed', refused());
    log.report('Scheduled work failed', new Error('a bug'));
    log.report('Scheduled work failed', refused());
    expect(lines.map((line) => line.message)).toEqual([
      'Scheduled work failed: Database unavailable (connection)',
      'Outbox delivery round failed: Database unavailable (connection)',
      'Scheduled work failed',
    ]);
  });

  it('flush writes the counts still pending', () => {
    log.report('Scheduled work failed', refused());
    log.report('Scheduled work failed', refused());
    log.flush();
    expect(lines.map((line) => line.fields.suppressed)).toEqual([0, 1]);
  });
});
