import { Server } from 'node:http';
import { INestApplication } from '@nestjs/common';
import { fastifyAdapterOf } from './adapter-of';

/** Timeouts of the connections and of the shutdown (set from the environment by installTimeouts). */
export interface ConnectionSettings {
  /** Headers and body must have arrived within this time, else 408. */
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** From the start of the close, the time in-flight requests get; then every connection is destroyed. */
  shutdownTimeoutMs: number;
}

const DEFAULT_CONNECTION_SETTINGS: ConnectionSettings = {
  requestTimeoutMs: 15_000,
  keepAliveTimeoutMs: 72_000,
  shutdownTimeoutMs: 25_000,
};
const connectionSettings = new WeakMap<object, ConnectionSettings>();

/** How often Node checks for requests past their timeout (its default, 30 s, would add up to that). */
const CONNECTIONS_CHECKING_INTERVAL_MS = 1_000;

/** The adapter's timeouts until installTimeouts sets the configured ones (Fastify's options). */
export const TIMEOUT_OPTIONS = {
  http: { connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS },
  requestTimeout: DEFAULT_CONNECTION_SETTINGS.requestTimeoutMs,
  keepAliveTimeout: DEFAULT_CONNECTION_SETTINGS.keepAliveTimeoutMs,
};

/** Applies the connection timeouts from the environment to the adapter's server. */
export function installTimeouts(app: INestApplication, settings: ConnectionSettings): void {
  const adapter = fastifyAdapterOf(app);
  connectionSettings.set(adapter, settings);
  const server = adapter.getHttpServer<Server>();
  server.requestTimeout = settings.requestTimeoutMs;
  // Node requires headersTimeout <= requestTimeout; the headers get the same budget.
  server.headersTimeout = settings.requestTimeoutMs;
  server.keepAliveTimeout = settings.keepAliveTimeoutMs;
}

/** The adapter's timeouts: installTimeouts's, or the defaults before it. */
export function connectionSettingsOf(adapter: object): ConnectionSettings {
  return connectionSettings.get(adapter) ?? DEFAULT_CONNECTION_SETTINGS;
}
