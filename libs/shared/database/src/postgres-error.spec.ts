import { createServer, Server } from 'node:net';
import {
  QueryFailedError,
  QueryRunnerAlreadyReleasedError,
  QueryRunnerProviderAlreadyReleasedError,
} from 'typeorm';
import { ListenedClient } from './listened-client';
import {
  connectionLostInFlight,
  databaseUnavailable,
  uniqueViolationConstraint,
} from './postgres-error';

function pgError(code: string, message = 'pg says no'): Error & { code: string } {
  return Object.assign(new Error(message), { code });
}

function failedQuery(driverError: Error): QueryFailedError {
  return new QueryFailedError('SELECT 1', [], driverError);
}

describe('databaseUnavailable', () => {
  it.each([
    ['terminated by pg_terminate_backend (57P01)', failedQuery(pgError('57P01')), 'connection'],
    ['server shutting down (57P02)', failedQuery(pgError('57P02')), 'connection'],
    [
      'server starting up (57P03)',
      pgError('57P03', 'the database system is starting up'),
      'connection',
    ],
    ['connection failure class 08', failedQuery(pgError('08006')), 'connection'],
    ['database renamed away (3D000)', pgError('3D000'), 'connection'],
    ['too many connections (53300)', pgError('53300'), 'overloaded'],
    ['statement_timeout (57014)', failedQuery(pgError('57014')), 'statement-timeout'],
    ['a read-only standby (25006)', failedQuery(pgError('25006')), 'read-only'],
    [
      'connection refused',
      pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'),
      'connection',
    ],
    ['connection reset inside a query', failedQuery(pgError('ECONNRESET')), 'connection'],
    [
      'pg: Connection terminated',
      failedQuery(new Error('Connection terminated unexpectedly')),
      'connection',
    ],
    [
      'pg-pool connect timeout',
      new Error('timeout exceeded when trying to connect'),
      'pool-timeout',
    ],
    [
      'a query runner released when its connection died inside a transaction',
      new QueryRunnerProviderAlreadyReleasedError(),
      'connection',
    ],
    [
      "a transaction's COMMIT on a query runner released the same way",
      new QueryRunnerAlreadyReleasedError(),
      'connection',
    ],
    [
      'refused on every address of the host',
      new AggregateError([pgError('ECONNREFUSED'), pgError('ECONNREFUSED')], ''),
      'connection',
    ],
  ])('%s: %s', (_name, error, kind) => {
    expect(databaseUnavailable(error)).toBe(kind);
  });

  it.each([
    ['a unique violation', failedQuery(pgError('23505'))],
    ['a syntax error (a bug)', failedQuery(pgError('42601'))],
    ['a plain bug', new TypeError('x is undefined')],
    [
      'an HTTP client refused by a downstream service',
      Object.assign(pgError('ECONNREFUSED'), { isAxiosError: true }),
    ],
    ['nothing', undefined],
  ])('%s is not the database being unavailable', (_name, error) => {
    expect(databaseUnavailable(error)).toBeUndefined();
  });

  it('the unique-violation reader still reads its constraint', () => {
    const error = failedQuery(Object.assign(pgError('23505'), { constraint: 'uq_x' }));
    expect(uniqueViolationConstraint(error)).toBe('uq_x');
  });
});

describe('connectionLostInFlight', () => {
  it.each([
    ['terminated under a statement (57P01)', failedQuery(pgError('57P01')), true],
    ['crash shutdown under a statement (57P02)', failedQuery(pgError('57P02')), true],
    ['reset under a statement', failedQuery(pgError('ECONNRESET')), true],
    [
      'pg: Connection terminated unexpectedly',
      new Error('Connection terminated unexpectedly'),
      true,
    ],
    ['refused', pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'), false],
    ['unknown host', pgError('ENOTFOUND', 'getaddrinfo ENOTFOUND db'), false],
    ['pool connect timeout', new Error('timeout exceeded when trying to connect'), false],
    ['starting up (57P03)', pgError('57P03', 'the database system is starting up'), false],
    ['read-only (25006)', failedQuery(pgError('25006')), false],
    ['a statement timeout (57014)', failedQuery(pgError('57014')), false],
    [
      'a client already dead',
      new Error('Client has encountered a connection error and is not queryable'),
      false,
    ],
    ['a unique violation', failedQuery(pgError('23505')), false],
  ])('%s: %s', (_name, error, expected) => {
    expect(connectionLostInFlight(error)).toBe(expected);
  });

  describe('a connection reset while it is made', () => {
    let server: Server;
    let port: number;
    beforeAll(async () => {
      // Accepts and resets at once: a router with no server behind it.
      server = createServer((socket) => socket.resetAndDestroy());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('sent nothing: not lost in flight, though the database is unavailable', async () => {
      const client = new ListenedClient({ host: '127.0.0.1', port, user: 'nobody' });
      const error = await client.connect().catch((e: unknown) => e);
      expect(databaseUnavailable(error)).toBe('connection');
      expect(connectionLostInFlight(error)).toBe(false);
    });
  });
});
