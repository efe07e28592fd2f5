import { createServer, IncomingMessage } from 'node:http';
import { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { decodeTraceExport } from './otlp-protobuf';

/** A span as an OTLP/HTTP export carries it, flattened with its resource's service name. */
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

/** The spans of one export request (ExportTraceServiceRequest) in its JSON encoding. */
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
  /** The OTLP protocols the exports came in (http/protobuf, http/json). */
  protocols(): string[];
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
 * A local OTLP/HTTP collector (node:http on a free loopback port) that takes trace exports in
 * either encoding (http/protobuf, the default, or http/json) and keeps their spans, or with
 * `keep: false` reads and discards them (a benchmark's sink). Any other content type on
 * POST /v1/traces is answered 415, so a protocol mismatch fails loudly.
 */
export async function startOtlpReceiver(options: { keep?: boolean } = {}): Promise<OtlpReceiver> {
  const keep = options.keep ?? true;
  const spans: ReceivedSpan[] = [];
  let exports = 0;
  const protocols = new Set<string>();
  const server = createServer((req, res) => {
    void (async () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const raw = await readBody(req);
      const type = String(req.headers['content-type']);
      const json = type.startsWith('application/json');
      if (!json && !type.startsWith('application/x-protobuf')) {
        res.writeHead(415).end();
        return;
      }
      protocols.add(json ? 'http/json' : 'http/protobuf');
      if (keep) {
        const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
        const decoded = json
          ? (JSON.parse(body.toString('utf8')) as OtlpExport)
          : (decodeTraceExport(body) as OtlpExport);
        spans.push(...spansOfExport(decoded));
      }
      exports++;
      // An empty ExportTraceServiceResponse, in the request's encoding.
      if (json) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    })().catch(() => res.writeHead(400).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    exports: () => exports,
    protocols: () => [...protocols],
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
