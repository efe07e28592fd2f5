import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { Logger, LoggerService } from '@nestjs/common';
import { Clock, SystemClock } from '@bank/shared/calendar';
import { BaseEnvironment } from '@bank/shared/config';
import { databaseOutage, waitForDatabase } from '@bank/shared/database';
import { ErrorShapeFilter } from '@bank/shared/error-shape';
import { REQUEST_ID_OPTIONS } from '@bank/shared/http';
import { FailureLog } from '@bank/shared/logging';
import { REQUEST_ID_HEADER } from '@bank/shared/tracing';

const CONTEXT = 'StartUp';

/** What the port answers while start-up waits for the database. */
export interface WaitingAnswers {
  serviceName: string;
  basePath: string;
  /** The service's filter, configured: its body for the database being unavailable. */
  filter: ErrorShapeFilter;
}

/** A stand-in listening on the service's port until the application listens there itself. */
export interface WaitingServer {
  close(): Promise<void>;
}

/** The database out of reach, as the service's filter answers it (DATABASE_UNAVAILABLE). */
const DATABASE_DOWN = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

function send(
  res: ServerResponse,
  status: number,
  body: object,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    // No keep-alive: the application takes the port over; a kept connection would then be cut.
    connection: 'close',
    ...headers,
  });
  res.end(JSON.stringify(body));
}

/**
 * The answers of the port while the database is awaited: liveness 200 (the process is alive; a
 * restart would not bring the database back), readiness and the health check 503 DOWN, and
 * every other request 503 with Retry-After in the service's own error body, as the running
 * service answers while its database is out of reach.
 */
export function waitingHandler(answers: WaitingAnswers) {
  const health = `${answers.basePath}/api/health`;
  const unavailable = answers.filter.answer(DATABASE_DOWN);
  return (req: IncomingMessage, res: ServerResponse): void => {
    const requestId = REQUEST_ID_OPTIONS.genReqId(req);
    const path = (req.url ?? '').split('?')[0];
    const answer = () => {
      const headers = { [REQUEST_ID_HEADER]: requestId };
      if (path === `${health}/live`) {
        send(res, 200, { status: 'UP', service: answers.serviceName }, headers);
      } else if (path === `${health}/ready`) {
        send(res, 503, { status: 'DOWN', service: answers.serviceName }, headers);
      } else if (path === health) {
        const down = { status: 'DOWN' };
        send(
          res,
          503,
          { ...down, service: answers.serviceName, checks: { database: down } },
          headers,
        );
      } else {
        send(res, 503, unavailable.body, { ...unavailable.headers, ...headers });
      }
    };
    // The body is read (and dropped) first, so the client is not cut while it still sends.
    req.on('error', () => res.destroy());
    req.resume();
    req.on('end', answer);
  };
}

/** Listens on HOST:PORT with the waiting answers; a port in use is the start's failure. */
async function listenWaiting(
  env: BaseEnvironment,
  handler: ReturnType<typeof waitingHandler>,
  portInUse: (error: NodeJS.ErrnoException) => Error,
): Promise<WaitingServer> {
  const server: Server = createServer(handler);
  server.requestTimeout = env.HTTP_REQUEST_TIMEOUT_MS;
  server.headersTimeout = Math.min(env.HTTP_REQUEST_TIMEOUT_MS, 60_000);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? portInUse(error) : error),
    );
    server.listen(env.PORT, env.HOST, resolve);
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Start-up's lines, before the service's logger exists: JSON where it logs JSON. */
function startUpLog(json: LoggerService | undefined) {
  const nest = new Logger(CONTEXT);
  return {
    log: (fields: Record<string, unknown>, message: string): void => {
      if (json) json.log(fields, message, CONTEXT);
      else nest.log(message);
    },
    error: (fields: Record<string, unknown>, message: string): void => {
      if (json) json.error(fields, message, CONTEXT);
      else nest.error(message);
    },
  };
}

export interface StartUpWaitSettings {
  serviceName: string;
  env: BaseEnvironment;
  /** The service's error filter (its body and language), built on a clock and a time zone. */
  errorFilter: (clock: Clock, timeZone: string) => ErrorShapeFilter;
  /** The error a port in use is reported with (names the variables that move it). */
  portInUse: (error: NodeJS.ErrnoException) => Error;
  /** bootstrapLogger's logger (JSON), or undefined where the service logs readable lines. */
  logger: LoggerService | undefined;
}

/**
 * With DATABASE_URL, before the application is created: listens on the service's port with the
 * waiting answers and waits until the database takes writes (waitForDatabase), up to
 * DB_STARTUP_WAIT_MS, logging each kind of failure once per ERROR_LOG_INTERVAL_MS with a count.
 * Returns the waiting server, which the caller closes just before the application listens;
 * undefined on SIGTERM or SIGINT during the wait (the process is then to end, nothing started).
 */
export async function waitForStartDatabase(
  settings: StartUpWaitSettings,
): Promise<WaitingServer | undefined> {
  const { env, serviceName } = settings;
  const urls = [env.DATABASE_URL, env.DATABASE_DIRECT_URL].filter((url) => url !== undefined);
  const filter = settings.errorFilter(new SystemClock(), env.BUSINESS_TIME_ZONE);
  filter.configure({
    retryAfterSeconds: env.RETRY_AFTER_SECONDS,
    outageLogIntervalMs: env.ERROR_LOG_INTERVAL_MS,
  });
  const handler = waitingHandler({ serviceName, basePath: env.BASE_PATH ?? '', filter });
  const server = await listenWaiting(env, handler, settings.portInUse);
  const log = startUpLog(settings.logger);
  const failures = new FailureLog(
    { error: (fields, message) => log.error(fields, message) },
    env.ERROR_LOG_INTERVAL_MS,
    databaseOutage,
  );
  const stop = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => stop.abort(signal);
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  let tries = 0;
  try {
    const waitedMs = await waitForDatabase({
      urls,
      deadlineMs: env.DB_STARTUP_WAIT_MS,
      applicationName: serviceName,
      signal: stop.signal,
      onFailure: (error) => {
        tries++;
        failures.report('Waiting for the database at start-up', error, {
          waitMs: env.DB_STARTUP_WAIT_MS,
        });
      },
    });
    if (tries > 0) log.log({ waitedMs, tries }, `Database reachable after ${waitedMs} ms`);
    return server;
  } catch (error) {
    if (stop.signal.aborted) {
      log.log({ tries }, `Stopped on ${String(stop.signal.reason)} while waiting for the database`);
      await server.close();
      return undefined;
    }
    await server.close();
    throw error;
  } finally {
    failures.flush();
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}
