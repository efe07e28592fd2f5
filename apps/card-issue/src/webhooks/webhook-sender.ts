import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { WebhookTargetPolicy, WebhookTargetRefusedError } from '@bank/shared/webhooks';
import { ATTEMPT_ERRORS } from './webhook-attempt-errors';
import type { WebhookAttemptResult } from './webhook-deliveries.repository';

/**
 * Idle keep-alive connections per receiver (host and port), and how long one may stay idle:
 * enough for WEBHOOK_SUBSCRIPTION_CONCURRENCY, and closed soon after a receiver goes quiet.
 */
const FREE_SOCKETS_PER_RECEIVER = 4;
const IDLE_SOCKET_MS = 15_000;

/** The most of a response body that is read and stored (response_prefix). */
export const RESPONSE_PREFIX_LENGTH = 256;

export interface WebhookPost {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
}

class AttemptTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
  }
}

/**
 * One POST of a delivery (docs/webhooks.md "Delivery", "Safety"). The target policy is applied
 * to the URL again (the configuration may have changed since the subscription was written) and
 * to every address the host resolves to, in the request's own lookup; redirects are not
 * followed (node:http does not) and count as failures like any non-2xx; the whole attempt, from
 * connecting to the first RESPONSE_PREFIX_LENGTH characters of the body, has one deadline; the
 * rest of the body is never read (the response is destroyed, and its connection with it).
 * Connections are kept alive per receiver (agents of this sender only, never shared with the
 * operation-service client): without them every delivery paid a TLS handshake, which cost more
 * CPU than the POST that wrote the event (docs/benchmarks.md). Every connection is opened
 * through the lookup check, so reusing one reaches the address that was checked. Never throws:
 * every outcome is a WebhookAttemptResult, whose error is `HTTP <status>` or one of
 * ATTEMPT_ERRORS (the details of a failure, addresses included, only in its `detail`).
 */
@Injectable()
export class WebhookSender implements OnModuleDestroy {
  private readonly agents = {
    'http:': new HttpAgent({
      keepAlive: true,
      maxFreeSockets: FREE_SOCKETS_PER_RECEIVER,
      timeout: IDLE_SOCKET_MS,
    }),
    'https:': new HttpsAgent({
      keepAlive: true,
      maxFreeSockets: FREE_SOCKETS_PER_RECEIVER,
      timeout: IDLE_SOCKET_MS,
    }),
  };

  constructor(private readonly policy: WebhookTargetPolicy) {}

  onModuleDestroy(): void {
    this.agents['http:'].destroy();
    this.agents['https:'].destroy();
  }

  post(post: WebhookPost): Promise<WebhookAttemptResult> {
    const at = new Date();
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const check = this.policy.checkUrl(post.url);
    if (!check.allowed) {
      return Promise.resolve({
        at,
        statusCode: null,
        latencyMs: 0,
        error: ATTEMPT_ERRORS.refused,
        responsePrefix: null,
        detail: `${check.rule}: ${check.message}`,
      });
    }
    const url = check.url;
    // In a traced delivery the attempt is the HTTP instrumentation's client span, whose
    // traceparent replaces the delivery's own in the headers the receiver gets.
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve) => {
      let settled = false;
      let ended = false;
      let statusCode: number | null = null;
      let latencyMs = 0;
      let prefix = '';
      const finish = (error: string | null, detail?: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        // A response read to its end leaves its connection to the agent for the next delivery.
        if (!ended) req.destroy();
        resolve({
          at,
          statusCode,
          latencyMs: statusCode === null ? elapsed() : latencyMs,
          error,
          responsePrefix: statusCode === null ? null : prefix,
          ...(detail === undefined ? {} : { detail }),
        });
      };
      const req = send(url, {
        method: 'POST',
        headers: { ...post.headers, 'Content-Length': String(Buffer.byteLength(post.body)) },
        agent: url.protocol === 'https:' ? this.agents['https:'] : this.agents['http:'],
        lookup: this.policy.lookup,
      });
      const deadline = setTimeout(
        () => req.destroy(new AttemptTimeoutError(post.timeoutMs)),
        post.timeoutMs,
      );
      req.on('response', (res: IncomingMessage) => {
        statusCode = res.statusCode ?? null;
        latencyMs = elapsed();
        const outcome = () =>
          statusCode !== null && statusCode >= 200 && statusCode < 300
            ? null
            : `HTTP ${statusCode}`;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          prefix = (prefix + chunk).slice(0, RESPONSE_PREFIX_LENGTH);
          if (prefix.length >= RESPONSE_PREFIX_LENGTH) finish(outcome());
        });
        res.on('end', () => {
          ended = true;
          finish(outcome());
        });
        // The answer counts once its status is in: a body cut short or stalled is not a failure.
        res.on('error', () => finish(outcome()));
        res.on('close', () => finish(outcome()));
      });
      req.on('error', (error: Error & { code?: string }) => {
        if (statusCode !== null) return; // after the status: handled by the response's events
        if (error instanceof WebhookTargetRefusedError) {
          finish(ATTEMPT_ERRORS.refused, `${error.rule}: ${error.message}`);
        } else if (error instanceof AttemptTimeoutError) {
          finish(ATTEMPT_ERRORS.timeout, error.message);
        } else {
          finish(
            ATTEMPT_ERRORS.connection,
            error.code ? `${error.code}: ${error.message}` : error.message,
          );
        }
      });
      req.end(post.body);
    });
  }
}
