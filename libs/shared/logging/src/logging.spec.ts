import { createServer, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import pino from 'pino';
import { pinoHttp } from 'pino-http';
import { loggerParams, logFormat } from './logging';

describe('logFormat', () => {
  it('is readable in development and JSON elsewhere unless LOG_FORMAT says', () => {
    expect(logFormat({ NODE_ENV: 'development' })).toBe('pretty');
    expect(logFormat({ NODE_ENV: 'production' })).toBe('json');
    expect(logFormat({ NODE_ENV: 'test' })).toBe('json');
    expect(logFormat({ NODE_ENV: 'development', LOG_FORMAT: 'json' })).toBe('json');
    expect(logFormat({ NODE_ENV: 'production', LOG_FORMAT: 'pretty' })).toBe('pretty');
  });
});

/** A written line, as much of it as the tests read. */
interface WrittenLine {
  [key: string]: unknown;
  req: { headers: Record<string, string> };
  err: { stack: string };
  reqId: string;
}

describe('loggerParams', () => {
  /** A logger with the services' options, writing its lines into an array. */
  function serviceLogger() {
    const written: string[] = [];
    const [options] = loggerParams('card-issue', 'info').pinoHttp as [pino.LoggerOptions];
    const logger = pino(options, { write: (line: string) => written.push(line) });
    return { logger, lines: () => written.map((l) => JSON.parse(l) as WrittenLine) };
  }

  it('writes a request-bound line with the request and without personal data or secrets', () => {
    const { logger, lines } = serviceLogger();
    // As pino-http binds each request's logger: the raw request, through the req serializer.
    const child = logger.child({
      req: {
        id: 'req-1',
        method: 'POST',
        url: '/api/v1/card-issue',
        headers: {
          'x-request-id': 'req-1',
          'user-agent': 'test',
          'x-secret': 'the-secret',
          authorization: 'Bearer token',
        },
      },
    });
    child.warn(
      {
        context: 'CardIssuesService',
        holder: {
          lastName: 'Ivanov',
          contactInfo: { phone: '79990000000' },
          passportData: { series: '4510', number: '123456' },
        },
        headers: { 'x-secret': 'the-secret' },
      },
      'Holder refused',
    );
    const [line] = lines();
    expect(line).toMatchObject({
      service: 'card-issue',
      msg: 'Holder refused',
      context: 'CardIssuesService',
      req: {
        id: 'req-1',
        method: 'POST',
        url: '/api/v1/card-issue',
        headers: { 'x-request-id': 'req-1', 'user-agent': 'test' },
      },
      holder: { lastName: 'Ivanov', contactInfo: '[REDACTED]', passportData: '[REDACTED]' },
      headers: { 'x-secret': '[REDACTED]' },
    });
    expect(Object.keys(line.req.headers)).toEqual(['x-request-id', 'user-agent']);
    const text = JSON.stringify(line);
    for (const secret of ['the-secret', 'Bearer token', '79990000000', '4510', '123456'])
      expect(text).not.toContain(secret);
  });

  it("writes an error's type, message and stack, and none of its data", () => {
    const { logger, lines } = serviceLogger();
    const error = Object.assign(new Error('insert failed'), {
      code: '23514',
      parameters: ['79990000000', 'someone@example.com'],
    });
    logger.error({ err: error, reqId: 'req-2' }, 'Unexpected error');
    const [line] = lines();
    expect(line.err).toMatchObject({ type: 'Error', message: 'insert failed', code: '23514' });
    expect(line.err.stack).toContain('insert failed');
    expect(line.reqId).toBe('req-2');
    expect(JSON.stringify(line)).not.toContain('79990000000');
  });

  /** pino-http's line of one request a real server answered with `answer`. */
  async function accessLine(
    answer: (res: ServerResponse) => void,
  ): Promise<WrittenLine> {
    // As nestjs-pino runs it: pino-http with the services' options, on a real server. pino-http
    // wraps the err serializer, so logSafeError receives pino's serialized copy of the error.
    const written: string[] = [];
    const [options] = loggerParams('card-issue', 'info').pinoHttp as [pino.LoggerOptions];
    const log = pinoHttp(options as Parameters<typeof pinoHttp>[0], {
      write: (line: string) => written.push(line),
    });
    const server = createServer((req, res) => {
      log(req, res);
      answer(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      await (await fetch(`http://127.0.0.1:${port}/api/v1/card-issue`)).text();
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    return JSON.parse(written[0]) as WrittenLine;
  }

  it("writes no made-up error, and so no stack, on pino-http's line of a 5xx answer", async () => {
    // During a database outage every request is a 503: pino-http's own "failed with status
    // code 503" carried its stack (about 1 KB) on each line.
    const line = await accessLine((res) => res.writeHead(503, { 'retry-after': '1' }).end('{}'));
    expect(line).toMatchObject({ level: 50, msg: 'request errored', res: { statusCode: 503 } });
    expect(line.err).toBeUndefined();
    expect(JSON.stringify(line)).not.toContain('stack');
  });

  it("names the error's type on pino-http's line of a response that failed", async () => {
    const line = await accessLine((res) => {
      (res as typeof res & { err?: Error }).err = new TypeError('the body could not be written');
      res.writeHead(500).end('{}');
    });
    expect(line).toMatchObject({ level: 50, res: { statusCode: 500 } });
    expect(line.err).toMatchObject({ type: 'TypeError', message: 'the body could not be written' });
    expect(line.err.stack).toMatch(/^TypeError: the body could not be written/);
  });
});
