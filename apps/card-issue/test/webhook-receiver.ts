import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { verifyWebhookSignature } from '@bank/shared/webhooks';
import type { WebhookEventBody } from '../src/webhooks/webhook-events.model';
import { publishedCallbackValidator } from './webhook-event-schema';

/** One POST as the receiver took it. */
export interface ReceivedWebhook {
  body: WebhookEventBody;
  /** The body exactly as received. */
  raw: string;
  headers: IncomingHttpHeaders;
  /**
   * The signature verified, by both verifiers, with one of the receiver's secrets (within
   * 300 s), and the delivery matches the callback of the published OpenAPI document.
   */
  verified: boolean;
  /** The secrets (of the receiver's list) @bank/shared/webhooks verified the delivery with. */
  matchingSecrets: string[];
  /** The secrets the `standardwebhooks` package (the Standard Webhooks reference) verified it with. */
  standardMatchingSecrets: string[];
  /**
   * Where the body or the headers break the callback of openapi/card-issue.json (its body schema,
   * its header parameters); none when the delivery conforms.
   */
  schemaErrors: string[];
  receivedAt: number;
}

/** How the receiver answers one POST (after recording it); a promise holds the answer back. */
export type WebhookAnswer = { status: number; body?: string; headers?: Record<string, string> };
export type WebhookBehaviour = (webhook: ReceivedWebhook) => WebhookAnswer | Promise<WebhookAnswer>;

export interface WebhookReceiver {
  /** Its URL on 127.0.0.1 (the port stays the same across stop/start). */
  readonly url: string;
  /** Every POST in arrival order, duplicates included. */
  readonly received: ReceivedWebhook[];
  /** The secrets it verifies with; a test sets them once it knows the subscription's. */
  secrets: string[];
  /** How it answers; 204 unless a test says otherwise. */
  behaviour: WebhookBehaviour;
  /** The events once each (deduplicated by id, first arrival kept), in arrival order. */
  unique(): WebhookEventBody[];
  /** Each POST that did not verify or conform, with why (empty when all did). */
  rejected(): { id: string; type: string; why: string[] }[];
  /** Stops listening: connections are refused, as for a receiver that is down. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
}

/** Whether `standardwebhooks` verifies the delivery with this secret (it throws when not). */
function standardVerifies(secret: string, raw: string, headers: IncomingHttpHeaders): boolean {
  try {
    new Webhook(secret).verify(raw, headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

/**
 * A real webhook receiver on a loopback port (node:http), as an integrator would write one:
 * reads the raw body, verifies the signature twice, with the `standardwebhooks` package (the
 * Standard Webhooks reference verifier, as docs/webhooks.md shows it) and with
 * @bank/shared/webhooks, checks the body and the headers against the callback of the published
 * OpenAPI document, records the event in arrival order and answers as its behaviour says (a delivery
 * that does not verify or conform gets 400, so the sender retries).
 */
export async function startWebhookReceiver(secrets: string[] = []): Promise<WebhookReceiver> {
  const checkDelivery = publishedCallbackValidator();
  let server: Server | null = null;
  let port = 0;
  const received: ReceivedWebhook[] = [];
  const receiver: WebhookReceiver = {
    get url() {
      return `http://127.0.0.1:${port}/hooks/card-issue`;
    },
    received,
    secrets,
    behaviour: () => ({ status: 204 }),
    unique() {
      const seen = new Set<string>();
      return received
        .filter((webhook) => !seen.has(webhook.body.id) && seen.add(webhook.body.id))
        .map((webhook) => webhook.body);
    },
    rejected() {
      return received
        .filter((webhook) => !webhook.verified)
        .map((webhook) => ({
          id: webhook.body.id,
          type: webhook.body.type,
          why: [
            ...(webhook.matchingSecrets.length === 0 ? ['@bank/shared/webhooks: no match'] : []),
            ...(webhook.standardMatchingSecrets.length === 0 ? ['standardwebhooks: no match'] : []),
            ...webhook.schemaErrors,
          ],
        }));
    },
    async stop() {
      const current = server;
      server = null;
      if (!current) return;
      current.closeAllConnections();
      await new Promise<void>((resolve) => current.close(() => resolve()));
    },
    async start() {
      const next = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          const matchingSecrets = receiver.secrets.filter(
            (secret) => verifyWebhookSignature({ body: raw, headers: req.headers, secret }).valid,
          );
          const standardMatchingSecrets = receiver.secrets.filter((secret) =>
            standardVerifies(secret, raw, req.headers),
          );
          const body = JSON.parse(raw) as WebhookEventBody;
          const schemaErrors = checkDelivery(body, req.headers);
          const webhook: ReceivedWebhook = {
            body,
            raw,
            headers: req.headers,
            verified:
              matchingSecrets.length > 0 &&
              standardMatchingSecrets.length > 0 &&
              schemaErrors.length === 0,
            matchingSecrets,
            standardMatchingSecrets,
            schemaErrors,
            receivedAt: Date.now(),
          };
          received.push(webhook);
          void Promise.resolve(
            webhook.verified
              ? receiver.behaviour(webhook)
              : { status: 400, body: 'bad signature or body' },
          ).then((answer) => {
            if (res.destroyed) return;
            res.writeHead(answer.status, answer.headers).end(answer.body);
          });
        });
      });
      await new Promise<void>((resolve) => next.listen(port, '127.0.0.1', resolve));
      port = (next.address() as AddressInfo).port;
      server = next;
    },
  };
  await receiver.start();
  return receiver;
}
