import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
} from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import pg from 'pg';
import { EmbeddedPostgres } from '@bank/shared/database';
import { operationName, PG_SPANS_SCOPE } from './instrumentations';
import { InMemoryTracing, registerInMemoryTracing } from './testing';

/** A parameter that holds personal data: it must never reach a span. */
const PERSONAL = 'Ivanov Ivan, passport 4509 123456';

/**
 * The statements' spans of `@opentelemetry/instrumentation-pg` as startTracing configures it
 * (instrumentations.ts), with PgErrorMessageRedaction, on a real node-postgres client and a real
 * database (TEST_DATABASE_URL's server, else the embedded PostgreSQL).
 */
describe('statement spans (instrumentation-pg)', () => {
  let embedded: EmbeddedPostgres | null = null;
  let url: string;
  let database: string;

  beforeAll(async () => {
    url = process.env.TEST_DATABASE_URL ?? '';
    if (!url) {
      embedded = await EmbeddedPostgres.start('memory://', 4);
      url = embedded.url;
    }
  });

  afterAll(async () => {
    await embedded?.stop();
  });

  interface Tracing {
    tracing: InMemoryTracing;
    client: pg.Client;
  }

  /** An SDK patched into pg as `options` say, and a connected client, for one describe. */
  function useTracing(options: { withoutPgRedaction?: boolean }): Tracing {
    const t = {} as Tracing;
    beforeAll(async () => {
      t.tracing = registerInMemoryTracing({ pg, ...options });
      t.client = new pg.Client({ connectionString: url });
      await t.client.connect();
      database = (await t.client.query<{ db: string }>('SELECT current_database() AS db')).rows[0]
        .db;
    });
    afterEach(() => t.tracing.memory.reset());
    afterAll(async () => {
      await t.client?.end();
      await t.tracing?.stop();
    });
    return t;
  }

  /** What an exporter sends of a span. */
  const exported = (span: ReadableSpan) =>
    JSON.stringify([span.name, span.attributes, span.status, span.events]);
  const statements = (t: Tracing) =>
    t.tracing.memory.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT);
  /** Runs `work` under a span of a sampled piece of work; returns its result and that span. */
  const inRecordingSpan = async <T>(t: Tracing, work: () => Promise<T>) => {
    const parent = t.tracing.provider.getTracer('test').startSpan('work');
    try {
      return { result: await context.with(trace.setSpan(ROOT_CONTEXT, parent), work), parent };
    } finally {
      parent.end();
    }
  };

  describe('as the services run it', () => {
    const t = useTracing({});

    it('gives a statement under a recording span its span: the text, never the parameters', async () => {
      const { result, parent } = await inRecordingSpan(t, () =>
        t.client.query<{ v: string }>('SELECT $1::text AS v', [PERSONAL]),
      );
      expect(result.rows).toEqual([{ v: PERSONAL }]);
      expect(statements(t)).toHaveLength(1);
      const [span] = statements(t);
      expect(span).toMatchObject({
        name: `SELECT ${database}`,
        instrumentationScope: { name: PG_SPANS_SCOPE },
        status: { code: SpanStatusCode.UNSET },
        attributes: {
          'db.system.name': 'postgresql',
          'db.namespace': database,
          'server.address': t.client.host,
          'server.port': t.client.port,
          'db.query.text': 'SELECT $1::text AS v',
          'db.operation.name': 'SELECT',
        },
      });
      expect(span.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
      expect(exported(span)).not.toContain('Ivanov');
    });

    it('traces the callback form too', async () => {
      await inRecordingSpan(
        t,
        () =>
          new Promise<void>((done, fail) =>
            t.client.query('SELECT 1', [], (error) => (error ? fail(error) : done())),
          ),
      );
      expect(statements(t).map((s) => s.attributes['db.query.text'])).toEqual(['SELECT 1']);
    });

    it('marks a failed statement ERROR with its SQLSTATE as error.type, never its message', async () => {
      const { result } = await inRecordingSpan(t, () =>
        t.client
          .query('SELECT $1::int', [PERSONAL])
          .catch((e: { code: string; message: string }) => e),
      );
      // What the database said quotes the parameter...
      expect(result).toMatchObject({ code: '22P02', message: expect.stringContaining('Ivanov') });
      const [span] = statements(t);
      expect(span.status).toEqual({ code: SpanStatusCode.ERROR });
      expect(span.attributes['error.type']).toBe('22P02');
      // ...and the span does not: its exception event is instrumentation-pg's sanitized one.
      expect(exported(span)).not.toContain('Ivanov');
      expect(span.events.map((e) => e.name)).toEqual(['exception']);
    });

    it('makes no span under no span, and exports none under a caller’s unsampled trace', async () => {
      await t.client.query('SELECT 4');
      const unsampled = trace.setSpan(
        ROOT_CONTEXT,
        trace.wrapSpanContext({
          traceId: '0af7651916cd43dd8448eb211c80319c',
          spanId: 'b7ad6b7169203331',
          traceFlags: TraceFlags.NONE,
        }),
      );
      const rows = await context.with(unsampled, () => t.client.query('SELECT 5 AS v'));
      expect(rows.rows).toEqual([{ v: 5 }]);
      expect(t.tracing.memory.getFinishedSpans()).toEqual([]);
    });
  });

  // The upstream defect PgErrorMessageRedaction works around
  // (docs/decisions/0034-tracing-what-spans-hold.md). When this
  // fails, instrumentation-pg no longer puts the error's message on the span: the redaction
  // can go.
  describe('instrumentation-pg alone', () => {
    const t = useTracing({ withoutPgRedaction: true });

    it("puts a failed statement's error message, which quotes the parameter, on its status", async () => {
      await inRecordingSpan(t, () =>
        t.client.query('SELECT $1::int', [PERSONAL]).catch(() => undefined),
      );
      const [span] = statements(t);
      expect(span.status).toEqual({
        code: SpanStatusCode.ERROR,
        message: expect.stringContaining('Ivanov'),
      });
      expect(span.attributes['error.type']).toBeUndefined();
    });
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
