import { randomUUID } from 'node:crypto';
import { sleep } from '@bank/shared/testing';
import { aUser, selfVirtual } from '@bank/card-issue/testing';
import { registration } from '@bank/client-registration/testing';
import { Answer } from './answers';

/** Pause between two writes of one loop: a steady load that leaves the 2 cores some air. */
const PACE_MS = 40;
/** A client gives up on an answer after this long (counted as no answer). */
const REQUEST_TIMEOUT_MS = 15_000;
/** How long a keyed or holder write is retried before the load gives up on it. */
const RETRY_FOR_MS = 90_000;
/** Third-party holders get this passport series, which no other user has. */
export const HOLDER_SERIES = '7777';

export interface JsonAnswer {
  status: number;
  body: unknown;
  retryAfter: number | null;
}

export async function sendJson(
  url: string,
  method: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<JsonAnswer> {
  try {
    const res = await fetch(url, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
    const retryAfter = res.headers.get('retry-after');
    return { status: res.status, body: parsed, retryAfter: retryAfter ? Number(retryAfter) : null };
  } catch (error) {
    return { status: 0, body: (error as Error).message, retryAfter: null };
  }
}

const ok = (status: number) => status >= 200 && status < 300;
const messageOf = (body: unknown) =>
  typeof body === 'object' && body !== null && 'message' in body
    ? String(body.message)
    : String(body).slice(0, 200);

/** A retry waits what Retry-After asks, at most half a second (the suite measures recovery). */
const retryPause = (answer: JsonAnswer) =>
  sleep(Math.min((answer.retryAfter ?? 0) * 1_000, 500) || 100);

/** One logical write as a client sends it: an answer per attempt. */
type Step = () => Promise<void>;

/** The writes of one service under load, and what they were acknowledged with. */
export abstract class ServiceLoad {
  readonly answers: Answer[] = [];
  private running = false;
  private loops: Promise<void>[] = [];

  constructor(readonly url: string) {}

  protected abstract steps(): Step[];

  start(): void {
    this.running = true;
    this.loops = this.steps().map(async (step) => {
      while (this.running) {
        await step();
        await sleep(PACE_MS);
      }
    });
  }

  /** Stops after each loop's write in progress (a keyed write is retried to its end first). */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  acknowledged(kind?: string): Answer[] {
    return this.answers.filter((a) => ok(a.status) && (!kind || a.kind === kind));
  }

  protected async send(
    kind: string,
    path: string,
    method: string,
    body: unknown,
    key?: string,
    target?: string,
  ): Promise<JsonAnswer> {
    const sentAt = Date.now();
    const answer = await sendJson(
      `${this.url}${path}`,
      method,
      body,
      key ? { 'idempotency-key': key } : {},
    );
    this.answers.push({
      kind,
      sentAt,
      answeredAt: Date.now(),
      status: answer.status,
      key,
      id: target ?? (ok(answer.status) ? this.idOf(answer.body) : undefined),
      message: ok(answer.status) ? undefined : messageOf(answer.body),
    });
    return answer;
  }

  protected abstract idOf(body: unknown): string;

  /** Sends until a 2xx (same body, same key), as a client that must get it done does. */
  protected async untilOk(send: () => Promise<JsonAnswer>): Promise<void> {
    const deadline = Date.now() + RETRY_FOR_MS;
    for (;;) {
      const answer = await send();
      if (ok(answer.status) || Date.now() > deadline) return;
      // A 4xx other than a key still in progress will not change by retrying.
      if (answer.status >= 400 && answer.status < 500 && answer.status !== 409) return;
      await retryPause(answer);
    }
  }
}

/** The owners the card-issue load issues cards to, one per kind of write. */
export interface Owners {
  plain: string;
  keyed: string;
  holder: string;
}

/**
 * card-issue: POSTs without a key (sent once), POSTs with an Idempotency-Key (retried with it
 * until acknowledged), POSTs for a third-party holder (a new user each, retried with the same
 * body until acknowledged), and PATCHes of acknowledged requests to FAILED (once each).
 */
export class CardIssueLoad extends ServiceLoad {
  private patched = new Set<string>();

  constructor(
    url: string,
    readonly owners: Owners,
  ) {
    super(url);
  }

  protected idOf(body: unknown): string {
    return (body as { requestId: string }).requestId;
  }

  protected steps(): Step[] {
    const api = '/api/v1/card-issue';
    return [
      async () => {
        await this.send('POST', api, 'POST', selfVirtual(this.owners.plain));
      },
      async () => {
        const key = `failover-${randomUUID()}`;
        const body = selfVirtual(this.owners.keyed);
        await this.untilOk(() => this.send('POST+key', api, 'POST', body, key));
      },
      async () => {
        const holder = aUser();
        holder.passportData = { ...holder.passportData, series: HOLDER_SERIES };
        const body = {
          request: {
            cardOwner: this.owners.holder,
            formFactor: 'VIRTUAL',
            cardHolder: { nameless: false, user: holder },
          },
        };
        await this.untilOk(() => this.send('POST holder', api, 'POST', body));
      },
      async () => {
        const target = this.acknowledged('POST')
          .map((a) => a.id!)
          .reverse()
          .find((id) => !this.patched.has(id));
        if (!target) {
          await sleep(100);
          return;
        }
        this.patched.add(target);
        await this.send(
          'PATCH',
          `${api}/${target}/status`,
          'PATCH',
          { status: 'FAILED' },
          undefined,
          target,
        );
      },
    ];
  }
}

/** client-registration: registrations without a key (once) and with one (retried with it). */
export class RegistrationLoad extends ServiceLoad {
  protected idOf(body: unknown): string {
    return (body as { id: string }).id;
  }

  protected steps(): Step[] {
    return [
      async () => {
        await this.send('register', '/api/clients', 'POST', registration());
      },
      async () => {
        const key = `failover-${randomUUID()}`;
        const body = registration();
        await this.untilOk(() => this.send('register+key', '/api/clients', 'POST', body, key));
      },
    ];
  }
}
