import { Logger } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { IdempotencyLease, IdempotencyLeaseLostError } from './idempotency-keys';
import { idempotencyKeySql } from './idempotency-keys.sql';
import { runIdempotent } from './run-idempotent';

/** What PostgreSQL sends every connection when a failover or an administrator ends it. */
const terminated = () =>
  new QueryFailedError(
    'UPDATE',
    [],
    Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
    }),
  );

const failingDb = (error: () => Error) => ({ query: () => Promise.reject(error()) });

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('Idempotency-Key statements failing while the database is out of reach', () => {
  afterEach(() => jest.restoreAllMocks());

  it('logs a failed lease renewal as the outage, without a stack', async () => {
    const warn = jest.fn();
    const lease = new IdempotencyLease(
      'k',
      '00000000-0000-4000-8000-000000000000',
      failingDb(terminated),
      idempotencyKeySql('keys'),
      30,
      { warn } as unknown as Logger,
    );
    await until(() => warn.mock.calls.length > 0);
    await lease.release().catch(() => undefined);
    expect(warn.mock.calls[0]).toEqual([
      {
        kind: 'Database unavailable (connection)',
        error: 'terminating connection due to administrator command',
      },
      'Idempotency-Key lease renewal failed',
    ]);
  });

  it('keeps the stack of an unexpected failure', async () => {
    const warn = jest.fn();
    const lease = new IdempotencyLease(
      'k',
      '00000000-0000-4000-8000-000000000000',
      failingDb(() => new TypeError('x is undefined')),
      idempotencyKeySql('keys'),
      30,
      { warn } as unknown as Logger,
    );
    await until(() => warn.mock.calls.length > 0);
    await lease.release().catch(() => undefined);
    expect(warn.mock.calls[0][0]).toEqual({ err: expect.any(TypeError) });
  });

  it('logs a key not given back as the outage, without a stack', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const lease = {
      release: () => Promise.reject(terminated()),
    } as unknown as IdempotencyLease;
    const work = () => Promise.reject(terminated());
    await expect(
      runIdempotent(
        { claim: () => Promise.resolve({ kind: 'held', lease }) },
        'k',
        {},
        { reused: () => new Error('reused'), inProgress: () => new IdempotencyLeaseLostError('k') },
        work,
      ),
    ).rejects.toBeInstanceOf(QueryFailedError);
    expect(warn.mock.calls[0]).toEqual([
      {
        kind: 'Database unavailable (connection)',
        error: 'terminating connection due to administrator command',
      },
      'Idempotency-Key not released; its lease will run out',
    ]);
  });
});
