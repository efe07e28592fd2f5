import request from 'supertest';

/** Test data builders for the card-issue e2e tests. */

export const SECRET = 'test-secret';

export const address = {
  country: 'Russia',
  region: 'Moscow',
  city: 'Moscow',
  street: 'Tverskaya',
  building: '1',
  apartment: '15',
};

let passportCounter = 100000;

/** A valid user-service User object (card-issue spec 2.2) with a fresh passport number. */
export function newUser(over: Record<string, unknown> = {}): Record<string, unknown> {
  passportCounter += 1;
  return {
    firstName: 'Maria',
    middleName: 'Ivanovna',
    lastName: 'Petrova',
    gender: 'FEMALE',
    clientType: 'FL',
    bankruptIndividual: false,
    bankruptEntrepreneur: false,
    contactInfo: { phone: '79161234567', email: 'maria.petrova@example.com' },
    embossingName: 'MARIA PETROVA',
    passportData: {
      birthDate: '15-03-1990',
      birthPlace: 'Moscow',
      issueDate: '20-03-2010',
      series: '4510',
      number: String(passportCounter),
    },
    actualAddress: address,
    registrationAddress: address,
    account: 'RUR',
    managerPin: 'M_0001',
    ...over,
  };
}

/** Creates a user in the reference user service over HTTP and returns its id. */
export async function createUser(
  baseUrl: string,
  over: Record<string, unknown> = {},
): Promise<string> {
  const res = await request(baseUrl)
    .post('/user-api/api/v1/users')
    .set('X-secret', SECRET)
    .send(newUser(over));
  if (res.status !== 201)
    throw new Error(`user creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { id: string }).id;
}

export function courier(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    address,
    recipient: {
      user: { firstName: 'Oleg', lastName: 'Sidorov', contactInfo: { phone: '79031112233' } },
    },
    date: '24-11-2026',
    timeSlot: { from: '10:00', to: '14:00' },
    ...over,
  };
}

export function selfVirtual(
  owner: string,
  over: Record<string, unknown> = {},
): { request: Record<string, unknown> } {
  return {
    request: {
      cardOwner: owner,
      formFactor: 'VIRTUAL',
      cardHolder: { userId: owner, nameless: false, embossedName: 'IVAN PETROV' },
      ...over,
    },
  };
}

export function selfPlastic(
  owner: string,
  delivery: Record<string, unknown>,
  over: Record<string, unknown> = {},
) {
  return selfVirtual(owner, { formFactor: 'PLASTIC', delivery, ...over });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until check() returns true or the time is up. */
export async function eventually(
  check: () => Promise<boolean>,
  timeoutMs = 20_000,
  stepMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(stepMs);
  }
}

/** A loopback port that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
