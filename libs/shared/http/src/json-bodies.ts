import { isUtf8 } from 'node:buffer';
import { Server } from 'node:http';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyHttpOptions } from 'fastify';

/** The largest request body a service reads (413 beyond, in the service's error shape). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Every body of these services is JSON. Nest's Fastify adapter parses
 * application/x-www-form-urlencoded besides JSON: a form body would reach validation as an
 * object and be answered field by field, so the form parser is removed as soon as Nest has
 * registered it; Fastify's own text/plain parser would hand validation a bare string, so it
 * goes as soon as the instance exists. A form, like any type but JSON, is 415, never parsed.
 */
export class JsonOnlyFastifyAdapter extends FastifyAdapter {
  constructor(options: FastifyHttpOptions<Server>) {
    super(options);
    this.getInstance().removeContentTypeParser('text/plain');
  }

  override registerParserMiddleware(prefix?: string, rawBody?: boolean): void {
    super.registerParserMiddleware(prefix, rawBody);
    const fastify = this.getInstance();
    if (fastify.hasContentTypeParser('application/x-www-form-urlencoded'))
      fastify.removeContentTypeParser('application/x-www-form-urlencoded');
    // Nest's JSON parser (Fastify's, safe from prototype poisoning), after three checks:
    // - No body at all is no body (undefined), not an error: clients send a JSON Content-Type
    //   on a POST or DELETE that takes none; a route that needs a body refuses undefined in
    //   validation, with its usual 400.
    // - Bytes that are not UTF-8 are refused: decoding them would put U+FFFD in their place,
    //   and a name would be stored so.
    // - The bounds: a body of 90,000 keys within the 1 MiB limit took the event loop for
    //   seconds to parse, validate and answer with a list of every key; it is refused from its
    //   bytes in a few ms. The largest valid body of either service has about 100 members.
    fastify.removeContentTypeParser('application/json');
    const { bodyLimit } = fastify.initialConfig;
    const parseJson = fastify.getDefaultJsonParser('error', 'error');
    this.useBodyParser(
      'application/json',
      rawBody === true,
      { bodyLimit },
      (request, body, done) => {
        if (body.length === 0) return done(null, undefined);
        if (!isUtf8(body)) return done(notUtf8(), undefined);
        if (!withinJsonBounds(body)) return done(bodyTooComplex(), undefined);
        // Typed for a string; it takes the buffer as Nest's own JSON parser hands it one.
        void parseJson(request, body as unknown as string, done);
      },
    );
  }
}

/** The most members (object keys and array elements, at every level) a body may have, about. */
export const MAX_BODY_MEMBERS = 500;

/** The deepest a body may nest objects and arrays. */
export const MAX_BODY_DEPTH = 16;

/** The error code of a body over either bound (the services' filters answer it as a 400). */
export const BODY_TOO_COMPLEX = 'BODY_TOO_COMPLEX';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;

/**
 * Whether a JSON text stays within MAX_BODY_DEPTH and MAX_BODY_MEMBERS, read from its bytes
 * before it is parsed: the members are counted as the commas and containers outside strings
 * (one more than a container's members for each empty one). UTF-8 never puts these ASCII bytes
 * inside a multi-byte character. The scan stops at the first byte over a bound; invalid JSON is
 * left to the parser.
 */
export function withinJsonBounds(text: Uint8Array): boolean {
  let members = 0;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const byte = text[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === COMMA) {
      if (++members > MAX_BODY_MEMBERS) return false;
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      if (++depth > MAX_BODY_DEPTH || ++members > MAX_BODY_MEMBERS) return false;
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      depth--;
    }
  }
  return true;
}

/** The error code of a body that is not valid UTF-8 (the services' filters answer it as a 400). */
export const BODY_NOT_UTF8 = 'BODY_NOT_UTF8';

function notUtf8(): Error {
  return Object.assign(new Error('Request body is not valid UTF-8'), {
    statusCode: 400,
    code: BODY_NOT_UTF8,
  });
}

function bodyTooComplex(): Error {
  return Object.assign(new Error('Request body is too complex'), {
    statusCode: 400,
    code: BODY_TOO_COMPLEX,
  });
}
