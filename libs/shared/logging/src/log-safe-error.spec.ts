import { runInNewContext } from 'node:vm';
import pino from 'pino';
import { QueryFailedError } from 'typeorm';
import { logSafeError, logSafeMessage } from './log-safe-error';

/** A pg DatabaseError as the driver raises it: its detail repeats the row. */
function driverError(code: string, message: string): Error {
  return Object.assign(new Error(message), {
    code,
    severity: 'ERROR',
    detail: 'Failing row contains (X1A2B3, 79161234567, leak@example.com, 4510, 123456)',
    where: 'PL/pgSQL function f() line 3 at RAISE: 79161234567',
    table: 'users',
    constraint: 'users_phone_check',
    routine: 'ExecConstraints',
  });
}

const ROW = ['X1A2B3', '79161234567', 'leak@example.com', '4510', '123456'];

describe('logSafeError', () => {
  it('keeps the kind and place of a failed query, never its parameters or the driver payload', () => {
    const error = new QueryFailedError(
      'INSERT INTO users VALUES ($1, $2, $3, $4, $5)',
      ROW,
      driverError(
        '23514',
        'new row for relation "users" violates check constraint "users_phone_check"',
      ),
    );
    const logged = logSafeError(error) as Record<string, unknown>;
    const text = JSON.stringify(logged);
    for (const value of ROW) expect(text).not.toContain(value);
    expect(text).not.toContain('INSERT INTO');
    expect(logged).toMatchObject({
      type: 'QueryFailedError',
      message: 'new row for relation "users" violates check constraint "users_phone_check"',
      driverError: {
        code: '23514',
        severity: 'ERROR',
        table: 'users',
        constraint: 'users_phone_check',
        routine: 'ExecConstraints',
      },
    });
    expect(logged.stack).toMatch(/^QueryFailedError: new row/);
  });

  it('masks the values PostgreSQL quotes in a data exception (class 22), in message and stack', () => {
    const error = new QueryFailedError(
      'SELECT 1',
      [],
      driverError('22P02', 'invalid input syntax for type integer: "79161234567"'),
    );
    const logged = logSafeError(error) as { message: string; stack: string };
    expect(logged.message).toBe('invalid input syntax for type integer: "[REDACTED]"');
    expect(logged.stack).not.toContain('79161234567');
    expect(logSafeMessage(error)).toBe(logged.message);
  });

  it('follows causes and aggregated errors with the same rules', () => {
    const inner = driverError('22001', 'value too long for type character varying(11): "x"');
    const error = new AggregateError([inner], 'all attempts failed', { cause: inner });
    const text = JSON.stringify(logSafeError(error));
    for (const value of ROW) expect(text).not.toContain(value);
    expect(text).toContain('22001');
  });

  it("reads the error itself from pino's serialized copy (what pino-http passes)", () => {
    const error = new QueryFailedError(
      'INSERT INTO users VALUES ($1, $2, $3, $4, $5)',
      ROW,
      driverError('23505', 'duplicate key value violates unique constraint "users_pkey"'),
    );
    // pino-http wraps every err serializer: it gets pino's standard serialization of the error.
    const copy: unknown = pino.stdSerializers.err(error);
    const logged = logSafeError(copy) as Record<string, unknown>;
    expect(logged).toEqual(logSafeError(error));
    expect(logged).toMatchObject({
      type: 'QueryFailedError',
      driverError: { type: 'Error', code: '23505' },
    });
    const text = JSON.stringify(logged);
    for (const value of ROW) expect(text).not.toContain(value);
  });

  it('names the type of an error from another realm and of a plain object', () => {
    const foreign: unknown = runInNewContext('new TypeError("from a vm context")');
    expect(logSafeError(foreign)).toMatchObject({
      type: 'TypeError',
      message: 'from a vm context',
    });
    expect(logSafeError({ message: 'thrown as an object' })).toMatchObject({
      type: 'Object',
      message: 'thrown as an object',
    });
    expect(
      logSafeError(Object.assign(Object.create(null) as object, { name: 'Odd' })),
    ).toMatchObject({ type: 'Odd' });
  });

  it('passes a non-error through', () => {
    expect(logSafeError('plain')).toBe('plain');
    expect(logSafeMessage(undefined)).toBe('undefined');
  });
});
