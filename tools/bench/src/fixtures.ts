import { courier, createUser, selfPlastic, selfVirtual } from '@bank/card-issue/testing';
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
