import { createServer, IncomingMessage } from 'node:http';
import { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** A span as an OTLP/HTTP JSON export carries it, flattened with its resource's service name. */
export interface ReceivedSpan {
  service: string;
  /** The instrumentation scope, e.g. @opentelemetry/instrumentation-pg. */
  scope: string;
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  status: { code?: number; message?: string };
}

export const SPAN_KIND = { INTERNAL: 1, SERVER: 2, CLIENT: 3, PRODUCER: 4, CONSUMER: 5 } as const;

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpAttribute[];
  status?: { code?: number; message?: string };
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { scope?: { name?: string }; spans?: OtlpSpan[] }[];
  }[];
}

function valueOf(value: OtlpValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

function attributesOf(attributes: OtlpAttribute[] = []): Record<string, unknown> {
  return Object.fromEntries(attributes.map((a) => [a.key, valueOf(a.value)]));
}

/** The spans of one OTLP/HTTP JSON export request body (ExportTraceServiceRequest). */
export function spansOfExport(body: OtlpExport): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((resourceSpans) => {
    const name = attributesOf(resourceSpans.resource?.attributes)['service.name'];
    const service = typeof name === 'string' ? name : '';
    return (resourceSpans.scopeSpans ?? []).flatMap((scopeSpans) =>
      (scopeSpans.spans ?? []).map((span) => ({
        service,
        scope: scopeSpans.scope?.name ?? '',
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        kind: span.kind,
        attributes: attributesOf(span.attributes),
        status: span.status ?? {},
      })),
    );
  });
}

export interface OtlpReceiver {
  /** The OTLP endpoint to configure (OTEL_EXPORTER_OTLP_ENDPOINT); traces go to /v1/traces. */
  url: string;
  /** Every span received so far (none kept when started with keep: false). */
  spans: ReceivedSpan[];
  /** Export requests answered so far. */
  exports(): number;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * A local OTLP/HTTP collector (node:http on a free loopback port) that takes JSON trace exports
 * (the http/json protocol of @opentelemetry/exporter-trace-otlp-http) and keeps their spans, or
 * with `keep: false` reads and discards them (a benchmark's sink). Anything but JSON on
 * POST /v1/traces is answered 415, so a protocol mismatch fails loudly.
 */
export async function startOtlpReceiver(options: { keep?: boolean } = {}): Promise<OtlpReceiver> {
  const keep = options.keep ?? true;
  const spans: ReceivedSpan[] = [];
  let exports = 0;
  const server = createServer((req, res) => {
    void (async () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const raw = await readBody(req);
      if (!String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      if (keep) {
        const text = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
        spans.push(...spansOfExport(JSON.parse(text.toString('utf8')) as OtlpExport));
      }
      exports++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    })().catch(() => res.writeHead(400).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    exports: () => exports,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
