import { Client } from 'pg';
import {
  INSERT_CARD_ISSUE_SQL,
  courier,
  createUser,
  selfPlastic,
  selfVirtual,
} from '@bank/card-issue/testing';
import { registration } from '@bank/client-registration/testing';
import { formatDdMmYyyy, localDateIn, plusCalendar } from '@bank/shared/calendar';
import { BenchContext } from './context';
import { Running } from './infra';

// ---------------------------------------------------------------- payloads (the harnesses' builders)

/** A courier date the service accepts whatever day the bench runs (the harness's default is a fixed date). */
function tomorrowInMoscow(): string {
  return formatDdMmYyyy(plusCalendar(localDateIn(new Date(), 'Europe/Moscow'), { days: 1 }));
}

/** Request bodies of the load runs, built by the services' test harnesses. */
export interface Payloads {
  /** A virtual card for `owner`, who holds it too: one user for the service to look up. */
  virtualCardForSelf(owner: string): ReturnType<typeof selfVirtual>;
  /** A plastic card by courier to a recipient given by name: still one user to look up. */
  plasticCardByCourier(owner: string): ReturnType<typeof selfPlastic>;
  /** A client for client-registration, with a passport no other has. */
  registration(): ReturnType<typeof registration>;
}

export function createPayloads(): Payloads {
  const delivery = { courier: courier({ date: tomorrowInMoscow() }) };
  return {
    virtualCardForSelf: (owner) => selfVirtual(owner),
    plasticCardByCourier: (owner) => selfPlastic(owner, delivery),
    registration: () => registration(),
  };
}

// ---------------------------------------------------------------- data for the load runs

/** POSTs `body` as JSON and returns the answer; anything but 201 is an error. */
async function post(url: string, body: object): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status !== 201) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

export interface LoadFixtures {
  /** Users the card issue POSTs take turns with. */
  owners: string[];
  /** A user with exactly 10 requests, for GET by client. */
  listed: string;
  /** The listed user's requests, for GET by id. */
  requestIds: string[];
  /** Registered clients, for GET by id. */
  clientIds: string[];
}

/** Creates the load runs' data through the services' own APIs. */
export async function createLoadFixtures(
  ctx: BenchContext,
  payloads: Payloads,
  card: Running,
  registrationService: Running,
): Promise<LoadFixtures> {
  const owners: string[] = [];
  for (let i = 0; i < 50; i++) owners.push(await createUser(card.url, {}, ctx.secret));
  const listed = await createUser(card.url, {}, ctx.secret);
  const requestIds: string[] = [];
  for (let i = 0; i < 10; i++) {
    const created = await post(
      `${card.url}/api/v1/card-issue`,
      payloads.virtualCardForSelf(listed),
    );
    requestIds.push(created.requestId as string);
  }
  const clientIds: string[] = [];
  for (let i = 0; i < 10; i++) {
    const created = await post(`${registrationService.url}/api/clients`, payloads.registration());
    clientIds.push(created.id as string);
  }
  return { owners, listed, requestIds, clientIds };
}

// ---------------------------------------------------------------- bulk card issue requests

/**
 * Columns of the rows seedCardIssues stores, one per INSERT_CARD_ISSUE_SQL parameter it sets:
 * business_day (ddMMyyyy), status, card_owner, holder_user_id, form_factor, card_holder (JSON
 * text), at (timestamptz).
 */
type SeedRowsQuery = string;

/**
 * Requests numbered from..to (inclusive): `mixed` makes every 20th CREATED, every 20th + 1
 * PROCESSING, the rest READY / PLASTIC_READY, all two hours old (so the due ones are due);
 * `created` makes them all CREATED. About 10 requests per owner at 10^6; a third have a holder
 * of their own. Ids come from the day's sequence, 400,000 per business day from 01-01-2026
 * (a day has 10^6).
 */
export function bulkRequests(
  from: number,
  to: number,
  statuses: 'mixed' | 'created',
): SeedRowsQuery {
  const status =
    statuses === 'created'
      ? `'CREATED'`
      : `CASE WHEN i % 20 = 0 THEN 'CREATED' WHEN i % 20 = 1 THEN 'PROCESSING' WHEN i % 2 = 0 THEN 'READY' ELSE 'PLASTIC_READY' END`;
  return `SELECT to_char(date '2026-01-01' + i / 400000, 'DDMMYYYY') AS business_day,
       ${status} AS status,
       'X' || lpad((i % 99991)::text, 5, '0') AS card_owner,
       CASE WHEN i % 3 = 0 THEN 'Y' || lpad((i % 99989)::text, 5, '0') END AS holder_user_id,
       CASE WHEN i % 2 = 0 THEN 'VIRTUAL' ELSE 'PLASTIC' END AS form_factor,
       '{"nameless": false, "embossedName": "BENCH USER"}' AS card_holder,
       now() - interval '2 hours' - i * interval '1 millisecond' AS at
     FROM generate_series(${from}, ${to}) AS i`;
}

/** `count` READY virtual requests owned and held by `userId`, created now. */
export function requestsOf(userId: string, count: number): SeedRowsQuery {
  return `SELECT '01022026' AS business_day, 'READY' AS status, '${userId}' AS card_owner,
       '${userId}' AS holder_user_id, 'VIRTUAL' AS form_factor, '{"nameless": false}' AS card_holder,
       now() AS at
     FROM generate_series(1, ${count}) AS i`;
}

/**
 * Stores the rows of `rows` with the repository's own INSERT_CARD_ISSUE_SQL (request, first
 * history entry and outbox message, as a POST does), wrapped unchanged as a session-local SQL
 * function so PostgreSQL plans it once and runs it per row: 10^5 requests in seconds, in one
 * transaction (they appear at once, as for a scheduler they would after a burst of POSTs).
 * The outbox messages stay pending, as the service leaves them with delivery off.
 */
export async function seedCardIssues(client: Client, rows: SeedRowsQuery): Promise<number> {
  await client.query(`CREATE OR REPLACE FUNCTION pg_temp.insert_card_issue(
       text, text, text, text, text, text, text, text, text, timestamptz, text, text)
     RETURNS text VOLATILE LANGUAGE sql AS $statement$ ${INSERT_CARD_ISSUE_SQL} $statement$`);
  const { rows: stored } = await client.query<{ n: number }>(
    `SELECT count(pg_temp.insert_card_issue(business_day, status, NULL, card_owner, holder_user_id,
       form_factor, card_holder, NULL, NULL, at, NULL, NULL))::int AS n FROM (${rows}) AS seed`,
  );
  return stored[0].n;
}
