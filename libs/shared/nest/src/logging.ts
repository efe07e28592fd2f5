import { IncomingMessage, ServerResponse } from 'node:http';
import { Params } from 'nestjs-pino';
import pino from 'pino';
import { REQUEST_ID_HEADER } from './http-adapter';

/**
 * Log paths that may hold personal data or secrets. pino's redaction replaces their
 * values before a line is written; wildcards cover the places DTOs and entities put them.
 */
const REDACTED_LOG_PATHS = [
  'req.headers["x-secret"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["x-secret"]',
  '*.passportData',
  '*.*.passportData',
  '*.*.*.passportData',
  '*.contactInfo',
  '*.*.contactInfo',
  '*.*.*.contactInfo',
  '*.*.*.*.contactInfo',
  '*.phone',
  '*.phoneNumber',
  '*.*.phoneNumber',
  '*.*.*.phoneNumber',
  '*.email',
  '*.series',
  '*.number',
  'passportData',
  'contactInfo',
  'phone',
  'email',
];

/**
 * Logs go to stdout synchronously: on SIGTERM Nest re-raises the signal right after the
 * shutdown hooks, and on a crash the process ends at once; an async buffer would lose the
 * last lines, which are the ones that matter then.
 */
export function loggerParams(serviceName: string, level: string): Params {
  return {
    pinoHttp: [
      {
        level,
        base: { service: serviceName },
        redact: { paths: REDACTED_LOG_PATHS, censor: '[REDACTED]' },
        genReqId: (req: IncomingMessage) => (req as IncomingMessage & { id?: string }).id ?? '',
        customLogLevel: (_req: IncomingMessage, res: ServerResponse, err?: Error) =>
          err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
        serializers: {
          req: (req: {
            id: string;
            method: string;
            url: string;
            headers: Record<string, unknown>;
          }) => ({
            id: req.id,
            method: req.method,
            url: req.url,
            headers: {
              [REQUEST_ID_HEADER]: req.headers[REQUEST_ID_HEADER],
              'user-agent': req.headers['user-agent'],
            },
          }),
        },
        timestamp: () => `,"time":"${new Date().toISOString()}"`,
      },
      pino.destination({ dest: 1, sync: true }),
    ],
  };
}
