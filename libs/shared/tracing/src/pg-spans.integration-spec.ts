import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
} from '@opentelemetry/api';
import { Client, Query } from 'pg';
import { EmbeddedPostgres } from '@bank/shared/database';
import { instrumentPg, operationName, PG_SPANS_SCOPE } from './pg-spans';
import { InMemoryTracing, registerInMemoryTracing } from './testing';

/**
 * The statements' spans on a real node-postgres client and a real database (TEST_DATABASE_URL's
 * server, else the embedded PostgreSQL), recorded by the SDK registered as main.ts does.
 */
describe('instrumentPg', () => {
  let tracing: InMemoryTracing;
  let embedded: EmbeddedPostgres | null = null;
  let client: Client;
  let unpatch: () => void;
  let database: string;

  beforeAll(async () => {
    tracing = registerInMemoryTracing();
    unpatch = instrumentPg(tracing.provider.getTracer(PG_SPANS_SCOPE), Client);
    let url = process.env.TEST_DATABASE_URL;
    if (!url) {
      embedded = await EmbeddedPostgres.start('memory://', 4);
      url = embedded.url;
    }
    client = new Client({ connectionString: url });
    await client.connect();
    database = (await client.query<{ db: string }>('SELECT current_database() AS db')).rows[0].db;
  });

  afterEach(() => tracing.memory.reset());

  afterAll(async () => {
    await client?.end();
    await embedded?.stop();
    unpatch?.();
    await tracing.stop();
  });

  const finished = () => tracing.memory.getFinishedSpans();

  /** Runs `work` under a span of a sampled piece of work; returns its result and that span. */
  const inRecordingSpan = async <T>(work: () => Promise<T>) => {
    const parent = tracing.provider.getTracer('test').startSpan('work');
    try {
      return { result: await context.with(trace.setSpan(ROOT_CONTEXT, parent), work), parent };
    } finally {
      parent.end();
    }
  };
  const statements = () => finished().filter((s) => s.kind === SpanKind.CLIENT);

  it('gives a statement under a recording span its span: the text, never the parameters', async () => {
    const { result, parent } = await inRecordingSpan(() =>
      client.query<{ v: string }>('SELECT $1::text AS v', ['Ivanov Ivan, passport 4509 123456']),
    );
    expect(result.rows).toEqual([{ v: 'Ivanov Ivan, passport 4509 123456' }]);
    const [span] = statements();
    expect(statements()).toHaveLength(1);
    expect(span.instrumentationScope.name).toBe(PG_SPANS_SCOPE);
    expect(span.name).toBe(`SELECT ${database}`);
    expect(span.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    expect(span.spanContext().traceId).toBe(parent.spanContext().traceId);
    expect(span.attributes).toEqual({
      'db.system.name': 'postgresql',
      'db.namespace': database,
      'server.address': client.host,
      'server.port': client.port,
      'db.query.text': 'SELECT $1::text AS v',
      'db.operation.name': 'SELECT',
    });
    expect(JSON.stringify(span.attributes)).not.toContain('Ivanov');
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('ends the span before the callback of the callback forms runs', async () => {
    const endedBeforeCallback: boolean[] = [];
    const callback = (done: () => void) => (error: Error | null) => {
      expect(error).toBeNull();
      endedBeforeCallback.push(statements().length === endedBeforeCallback.length + 1);
      done();
    };
    await inRecordingSpan(async () => {
      await new Promise<void>((done) => client.query('SELECT 1', [], callback(done)));
      await new Promise<void>((done) =>
        client.query({ text: 'SELECT 2', callback: callback(done) } as never),
      );
    });
    expect(endedBeforeCallback).toEqual([true, true]);
    expect(statements().map((s) => s.attributes['db.query.text'])).toEqual([
      'SELECT 1',
      'SELECT 2',
    ]);
  });

  it("ends a submittable's span with its 'end', a failed one's with its 'error'", async () => {
    const submit = (text: string) =>
      new Promise<string>((done) => {
        const query = client.query(new Query(text));
        query.on('end', () => done('end'));
        query.on('error', (error: Error & { code?: string }) => done(`error ${error.code}`));
      });
    const { result } = await inRecordingSpan(async () => [
      await submit('SELECT 3 AS v'),
      await submit('SELECT 1 / 0'),
    ]);
    expect(result).toEqual(['end', 'error 22012']);
    expect(
      statements().map((s) => [
        s.attributes['db.query.text'],
        s.status.code,
        s.attributes['error.type'],
      ]),
    ).toEqual([
      ['SELECT 3 AS v', SpanStatusCode.UNSET, undefined],
      ['SELECT 1 / 0', SpanStatusCode.ERROR, '22012'],
    ]);
  });

  it('marks a failed statement: its SQLSTATE as error.type, ERROR, no message', async () => {
    const { result } = await inRecordingSpan(() =>
      client.query('SELECT 1 / $1::int', [0]).catch((e: { code: string }) => e.code),
    );
    expect(result).toBe('22012');
    const [span] = statements();
    expect(span.attributes['error.type']).toBe('22012');
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(span.events).toEqual([]);
  });

  it('makes no span under no span, nor under a caller’s unsampled trace', async () => {
    await client.query('SELECT 4');
    const unsampled = trace.setSpan(
      ROOT_CONTEXT,
      trace.wrapSpanContext({
        traceId: '0af7651916cd43dd8448eb211c80319c',
        spanId: 'b7ad6b7169203331',
        traceFlags: TraceFlags.NONE,
      }),
    );
    const rows = await context.with(unsampled, () => client.query('SELECT 5 AS v'));
    expect(rows.rows).toEqual([{ v: 5 }]);
    expect(finished()).toEqual([]);
  });

  it('puts the unpatched query back', () => {
    const before = Client.prototype.query;
    const undo = instrumentPg(tracing.provider.getTracer('x'), Client);
    expect(Client.prototype.query).not.toBe(before);
    undo();
    expect(Client.prototype.query).toBe(before);
  });
});

describe('operationName', () => {
  it.each([
    ['SELECT 1', 'SELECT'],
    ['  insert into t values (1)', 'INSERT'],
    ['COMMIT;', 'COMMIT'],
    ['\n\tWITH x AS (SELECT 1) SELECT * FROM x', 'WITH'],
    ['-- a comment', undefined],
    ['', undefined],
  ])('reads %j as %j', (text, operation) => {
    expect(operationName(text)).toBe(operation);
  });
});
