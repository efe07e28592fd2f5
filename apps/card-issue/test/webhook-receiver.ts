import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhookSignature } from '@bank/shared/webhooks';
import type { WebhookEventBody } from '../src/webhooks/webhook-events.model';

/** One POST as the receiver took it. */
export interface ReceivedWebhook {
  body: WebhookEventBody;
  /** The body exactly as received. */
  raw: string;
  headers: IncomingHttpHeaders;
  /** The Webhook-Signature header verified against the receiver's secrets (within 300 s). */
  verified: boolean;
  /** The secrets (of the receiver's list) one of the header's signatures matched. */
  matchingSecrets: string[];
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
  /** Stops listening: connections are refused, as for a receiver that is down. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
}

/**
 * A real webhook receiver on a loopback port (node:http), as an integrator would write one:
 * reads the raw body, verifies the signature with @bank/shared/webhooks, records the event in
 * arrival order and answers as its behaviour says (a signature that does not verify gets 400, so
 * the sender retries). The docs' verification recipe is the same few lines.
 */
export async function startWebhookReceiver(secrets: string[] = []): Promise<WebhookReceiver> {
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
          const header = req.headers['webhook-signature'] as string | undefined;
          const matchingSecrets = receiver.secrets.filter(
            (secret) => verifyWebhookSignature({ body: raw, header, secret }).valid,
          );
          const webhook: ReceivedWebhook = {
            body: JSON.parse(raw) as WebhookEventBody,
            raw,
            headers: req.headers,
            verified: matchingSecrets.length > 0,
            matchingSecrets,
            receivedAt: Date.now(),
          };
          received.push(webhook);
          void Promise.resolve(
            webhook.verified ? receiver.behaviour(webhook) : { status: 400, body: 'bad signature' },
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
