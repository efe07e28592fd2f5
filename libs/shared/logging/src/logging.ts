import { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { LoggerService } from '@nestjs/common';
import { Logger, Params, PinoLogger } from 'nestjs-pino';
import pino from 'pino';
import { REQUEST_ID_HEADER } from '@bank/shared/tracing';
import { logSafeError } from './log-safe-error';
import { redactLogLine } from './redact-log';

export type LogFormat = 'json' | 'pretty';

/**
 * LOG_FORMAT, or unset: readable lines in development (`npm start`, `nx serve`), JSON
 * anywhere else (production images and tests set NODE_ENV).
 */
export function logFormat(env: { LOG_FORMAT?: LogFormat; NODE_ENV: string }): LogFormat {
  return env.LOG_FORMAT ?? (env.NODE_ENV === 'development' ? 'pretty' : 'json');
}

/**
 * pino-pretty as an in-process synchronous stream (not a transport thread, which is async),
 * or undefined where it is not installed (it is a development dependency: a production image
 * logs JSON even with LOG_FORMAT=pretty). Loaded through createRequire so that the bundler
 * neither inlines it nor lists it among the bundle's dependencies.
 */
function prettyDestination(): pino.DestinationStream | undefined {
  let pretty: typeof import('pino-pretty');
  try {
    pretty = createRequire(__filename)('pino-pretty') as typeof import('pino-pretty');
  } catch {
    return undefined;
  }
  return pretty({
    destination: 1,
    sync: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,service,context,req,res,responseTime',
    messageFormat:
      '{service} {if context}[{context}] {end}{msg}' +
      '{if req.method}: {req.method} {req.url}{end}{if res.statusCode} {res.statusCode}{end}' +
      '{if responseTime} {responseTime} ms{end}{if req.id} (request {req.id}){end}',
    singleLine: true,
  });
}

/**
 * The probes and the metrics scrape: every few seconds from every kubelet and Prometheus, so
 * they are logged at debug, not info (a failing readiness probe shows in the metrics and in the
 * logs of what failed).
 */
export function operationsPaths(basePath = ''): Set<string> {
  return new Set([
    '/metrics',
    `${basePath}/api/health`,
    `${basePath}/api/health/live`,
    `${basePath}/api/health/ready`,
  ]);
}

/**
 * Logs go to stdout synchronously: on SIGTERM Nest re-raises the signal right after the
 * shutdown hooks, and on a crash the process ends at once; an async buffer would lose the
 * last lines, which are the ones that matter then.
 */
export function loggerParams(
  serviceName: string,
  level: string,
  format: LogFormat = 'json',
  basePath = '',
): Params {
  const quiet = operationsPaths(basePath);
  const serializers = {
    // Never a failed query's parameters or the driver's error payload (see logSafeError).
    err: logSafeError,
    req: (req: { id: string; method: string; url: string; headers: Record<string, unknown> }) => ({
      id: req.id,
      method: req.method,
      url: req.url,
      headers: {
        [REQUEST_ID_HEADER]: req.headers[REQUEST_ID_HEADER],
        'user-agent': req.headers['user-agent'],
      },
    }),
  };
  // Written by their serializers, which keep only safe fields (pino-http's `res`: status, headers).
  const serialized = new Set([...Object.keys(serializers), 'res']);
  return {
    pinoHttp: [
      {
        level,
        base: { service: serviceName },
        // Personal data and secrets are redacted from each line as it is written (redactLogLine),
        // not by pino's `redact`: that one also runs on a child logger's bindings when the child
        // is made, and pino-http makes one per request, bound to the request, whether or not a
        // line is written (docs/decisions/0037-logs-whitelisted-and-redacted.md).
        formatters: { log: (line: Record<string, unknown>) => redactLogLine(line, serialized) },
        genReqId: (req: IncomingMessage) => (req as IncomingMessage & { id?: string }).id ?? '',
        customLogLevel: (req: IncomingMessage, res: ServerResponse, err?: Error) =>
          quiet.has((req.url ?? '').split('?')[0])
            ? 'debug'
            : err || res.statusCode >= 500
              ? 'error'
              : res.statusCode >= 400
                ? 'warn'
                : 'info',
        // pino-http makes up an error ("failed with status code 503") for every 5xx answered
        // without one of its own, and its stack is pino-http's own frames: about 1 KB per
        // request while the database is out of reach. The access line keeps the status; the
        // failure itself is the service filter's to log (the stack of an unexpected one, an
        // outage once per interval with a count). A real error of the response stays.
        customErrorObject: (
          _req: IncomingMessage,
          res: ServerResponse,
          error: Error,
          line: Record<string, unknown>,
        ) => {
          if (error.message !== `failed with status code ${res.statusCode}`) return line;
          const { err: _madeUp, ...rest } = line;
          return rest;
        },
        serializers,
        timestamp: () => `,"time":"${new Date().toISOString()}"`,
      },
      (format === 'pretty' && prettyDestination()) || pino.destination({ dest: 1, sync: true }),
    ],
  };
}

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** loggerParams from the raw environment where the service logs JSON; undefined elsewhere. */
function startParams(serviceName: string, raw: NodeJS.ProcessEnv): Params | undefined {
  const format =
    raw.LOG_FORMAT === 'json' || raw.LOG_FORMAT === 'pretty' ? raw.LOG_FORMAT : undefined;
  if (logFormat({ LOG_FORMAT: format, NODE_ENV: raw.NODE_ENV ?? 'development' }) !== 'json')
    return undefined;
  const level = LEVELS.includes(raw.LOG_LEVEL ?? '') ? (raw.LOG_LEVEL as string) : 'info';
  return loggerParams(serviceName, level, 'json', raw.BASE_PATH ?? '');
}

/**
 * The logger of a service's start, before the service's own (LoggerModule's) is attached: the
 * same JSON lines (pino, loggerParams) wherever the service logs JSON, so that what goes wrong
 * while it starts (the database out of reach) is a JSON line too, not Nest's coloured text.
 * Read from the raw environment, valid or not (an invalid LOG_LEVEL is taken as info);
 * undefined where the service logs readable lines (Nest's own logger prints them then).
 */
export function bootstrapLogger(
  serviceName: string,
  raw: NodeJS.ProcessEnv = process.env,
): LoggerService | undefined {
  const params = startParams(serviceName, raw);
  return params && new Logger(new PinoLogger(params), params);
}

/**
 * Writes why the service stops (a bad configuration, a failed start) as one `fatal` JSON line,
 * whatever LOG_LEVEL silences, where the service logs JSON; false where it logs readable lines
 * (the caller prints the text then).
 */
export function logFatal(
  serviceName: string,
  message: string,
  raw: NodeJS.ProcessEnv = process.env,
): boolean {
  const params = startParams(serviceName, raw);
  if (!params) return false;
  const [options, destination] = params.pinoHttp as [pino.LoggerOptions, pino.DestinationStream];
  pino({ ...options, level: 'fatal' }, destination).fatal(message);
  return true;
}
