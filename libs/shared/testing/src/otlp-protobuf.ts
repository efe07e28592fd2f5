/**
 * Reads an OTLP/HTTP protobuf trace export (ExportTraceServiceRequest, the http/protobuf
 * protocol of @opentelemetry/exporter-trace-otlp-proto) into the shape of its JSON encoding, for
 * the test collector (otlp-receiver.ts). Only the fields the tests look at are read: resource
 * attributes, scope name, span ids, name, kind, attributes and status; the rest is skipped.
 * Field numbers: opentelemetry-proto, collector/trace/v1 and trace/v1.
 */

interface Field {
  number: number;
  /** A varint (wire type 0) or fixed64 (1) as a bigint, fixed32 (5) as a number, or bytes (2). */
  value: bigint | number | Buffer;
}

function readVarint(buf: Buffer, at: { pos: number }): bigint {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    if (at.pos >= buf.length) throw new Error('protobuf: truncated varint');
    const byte = buf[at.pos++];
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return result;
    shift += 7n;
  }
}

/** The fields of one message, in order. */
function fieldsOf(buf: Buffer): Field[] {
  const fields: Field[] = [];
  const at = { pos: 0 };
  while (at.pos < buf.length) {
    const key = Number(readVarint(buf, at));
    const number = key >>> 3;
    const wire = key & 7;
    let value: Field['value'];
    if (wire === 0) value = readVarint(buf, at);
    else if (wire === 1) {
      value = buf.readBigUInt64LE(at.pos);
      at.pos += 8;
    } else if (wire === 2) {
      const length = Number(readVarint(buf, at));
      if (at.pos + length > buf.length) throw new Error('protobuf: truncated field');
      value = buf.subarray(at.pos, at.pos + length);
      at.pos += length;
    } else if (wire === 5) {
      value = buf.readUInt32LE(at.pos);
      at.pos += 4;
    } else throw new Error(`protobuf: wire type ${wire} not supported`);
    fields.push({ number, value });
  }
  return fields;
}

const bytes = (fields: Field[], n: number) =>
  fields.filter((f) => f.number === n).map((f) => f.value as Buffer);
const first = (fields: Field[], n: number) => fields.find((f) => f.number === n)?.value;
const text = (fields: Field[], n: number) => {
  const value = first(fields, n);
  return value instanceof Buffer ? value.toString('utf8') : undefined;
};
const hex = (fields: Field[], n: number) => {
  const value = first(fields, n);
  return value instanceof Buffer ? value.toString('hex') : '';
};

export interface JsonAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string;
  doubleValue?: number;
  arrayValue?: { values: JsonAnyValue[] };
}

function anyValue(buf: Buffer): JsonAnyValue {
  const fields = fieldsOf(buf);
  const f = fields[0];
  if (!f) return {};
  switch (f.number) {
    case 1:
      return { stringValue: (f.value as Buffer).toString('utf8') };
    case 2:
      return { boolValue: f.value !== 0n };
    case 3:
      return { intValue: BigInt.asIntN(64, f.value as bigint).toString() };
    case 4: {
      const double = Buffer.alloc(8);
      double.writeBigUInt64LE(f.value as bigint);
      return { doubleValue: double.readDoubleLE() };
    }
    case 5:
      return { arrayValue: { values: bytes(fieldsOf(f.value as Buffer), 1).map(anyValue) } };
    default:
      return {};
  }
}

function attributes(fields: Field[], n: number) {
  return bytes(fields, n).map((kv) => {
    const f = fieldsOf(kv);
    const value = first(f, 2);
    return { key: text(f, 1) ?? '', value: value instanceof Buffer ? anyValue(value) : {} };
  });
}

/** The export request as its JSON encoding would have it (ids as hex, int64 as strings). */
export function decodeTraceExport(body: Buffer) {
  return {
    resourceSpans: bytes(fieldsOf(body), 1).map((rs) => {
      const resourceSpans = fieldsOf(rs);
      const resource = first(resourceSpans, 1);
      return {
        resource: {
          attributes: resource instanceof Buffer ? attributes(fieldsOf(resource), 1) : [],
        },
        scopeSpans: bytes(resourceSpans, 2).map((ss) => {
          const scopeSpans = fieldsOf(ss);
          const scope = first(scopeSpans, 1);
          return {
            scope: { name: scope instanceof Buffer ? text(fieldsOf(scope), 1) : undefined },
            spans: bytes(scopeSpans, 2).map((sp) => {
              const span = fieldsOf(sp);
              const status = first(span, 15);
              const statusFields = status instanceof Buffer ? fieldsOf(status) : [];
              const code = first(statusFields, 3);
              return {
                traceId: hex(span, 1),
                spanId: hex(span, 2),
                parentSpanId: hex(span, 4),
                name: text(span, 5) ?? '',
                kind: Number(first(span, 6) ?? 0n),
                attributes: attributes(span, 9),
                status: {
                  // proto3 leaves out a default value: code 0 (unset), as JSON spells it.
                  code: Number(code ?? 0n),
                  ...(text(statusFields, 2) !== undefined
                    ? { message: text(statusFields, 2) }
                    : {}),
                },
              };
            }),
          };
        }),
      };
    }),
  };
}
