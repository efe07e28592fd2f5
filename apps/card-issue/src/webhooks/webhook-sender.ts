import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import { Injectable } from '@nestjs/common';
import { WebhookTargetPolicy, WebhookTargetRefusedError } from '@bank/shared/webhooks';
import type { WebhookAttemptResult } from './webhook-deliveries.repository';

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
    super(`timeout after ${timeoutMs} ms`);
  }
}

/**
 * One POST of a delivery (docs/webhooks.md "Delivery", "Safety"). The target policy is applied
 * to the URL again (the configuration may have changed since the subscription was written) and
 * to every address the host resolves to, in the request's own lookup; redirects are not
 * followed (node:http does not) and count as failures like any non-2xx; the whole attempt, from
 * connecting to the first RESPONSE_PREFIX_LENGTH characters of the body, has one deadline; the
 * rest of the body is never read (the response is destroyed). A fresh connection per attempt
 * (no keep-alive agent): no socket is shared between receivers, and every connection passes the
 * lookup check. Never throws: every outcome is a WebhookAttemptResult.
 */
@Injectable()
export class WebhookSender {
  constructor(private readonly policy: WebhookTargetPolicy) {}

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
        error: `target refused (${check.rule}): ${check.message}`,
        responsePrefix: null,
      });
    }
    const url = check.url;
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve) => {
      let settled = false;
      let statusCode: number | null = null;
      let latencyMs = 0;
      let prefix = '';
      const finish = (error: string | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        req.destroy();
        resolve({
          at,
          statusCode,
          latencyMs: statusCode === null ? elapsed() : latencyMs,
          error,
          responsePrefix: statusCode === null ? null : prefix,
        });
      };
      const req = send(url, {
        method: 'POST',
        headers: { ...post.headers, 'Content-Length': String(Buffer.byteLength(post.body)) },
        agent: false,
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
        res.on('end', () => finish(outcome()));
        // The answer counts once its status is in: a body cut short or stalled is not a failure.
        res.on('error', () => finish(outcome()));
        res.on('close', () => finish(outcome()));
      });
      req.on('error', (error: Error & { code?: string }) => {
        if (statusCode !== null) return; // after the status: handled by the response's events
        if (error instanceof WebhookTargetRefusedError) {
          finish(`target refused (${error.rule}): ${error.message}`);
        } else if (error instanceof AttemptTimeoutError) {
          finish(error.message);
        } else {
          finish(error.code ? `${error.code}: ${error.message}` : error.message);
        }
      });
      req.end(post.body);
    });
  }
}
