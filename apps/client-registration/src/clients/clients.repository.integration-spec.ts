import { DataSource, QueryFailedError } from 'typeorm';
import { buildDataSourceOptions } from '@bank/shared/database';
import { createTestDatabase, TestDatabase } from '@bank/shared/testing';
import { DATABASE_OPTIONS } from '../database/database.config';
import { ManagersRepository } from '../managers/managers.repository';
import { AccountNumberTakenError, PassportAlreadyRegisteredError } from './clients.errors';
import { ClientsRepository, NewClient } from './clients.repository';

let sequence = 0;

function newClient(overrides: Partial<NewClient> = {}): NewClient {
  sequence += 1;
  const at = new Date('2026-11-23T12:00:00.123Z');
  const address = {
    Country: 'Россия',
    Region: 'Тверская',
    City: 'Тверь',
    Street: 'Советская',
    Building: '1',
    Apartment: '2',
  };
  return {
    lastName: 'Петров',
    firstName: 'Иван',
    middleName: 'Сергеевич',
    gender: 'MALE',
    clientType: 'UP',
    bankruptIndividual: false,
    bankruptEntrepreneur: true,
    embossingName: 'IVAN PETROV',
    phone: '79161234567',
    email: 'ivan@example.ru',
    birthDate: '2000-02-29',
    birthPlace: 'Москва',
    passportIssueDate: '2020-03-01',
    passportSeries: '4510',
    passportNumber: (100_000 + sequence).toString(),
    ...Object.fromEntries(Object.entries(address).map(([k, v]) => [`actual${k}`, v])),
    ...Object.fromEntries(Object.entries(address).map(([k, v]) => [`registration${k}`, v])),
    managerPin: 'M_0003',
    accountNumber: `40702810${(100_000_000_000 + sequence).toString()}`,
    accountCurrency: 'RUR',
    accountingMode: 100,
    registeredAt: at,
    actualizedAt: at,
    ...overrides,
  } as NewClient;
}

describe('clients schema and repository (integration)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let clients: ClientsRepository;

  beforeAll(async () => {
    db = await createTestDatabase('client_registration_repository');
    dataSource = new DataSource(
      buildDataSourceOptions(db.url, { poolSize: 4, statementTimeoutMs: 10_000 }, DATABASE_OPTIONS),
    );
    await dataSource.initialize();
    await dataSource.runMigrations();
    clients = new ClientsRepository(dataSource);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('seeds the five managers of docs/api/client-registration.md', async () => {
    const managers = new ManagersRepository(dataSource);
    expect(await managers.findAll()).toEqual([
      { pin: 'M_0001', fullName: 'Ivanov Ivan Ivanovich' },
      { pin: 'M_0002', fullName: 'Petrova Maria Sergeevna' },
      { pin: 'M_0003', fullName: 'Sidorov Alexey Petrovich' },
      { pin: 'M_0004', fullName: 'Kuznetsova Olga Nikolaevna' },
      { pin: 'M_0005', fullName: 'Smirnov Dmitry Andreevich' },
    ]);
    expect(await managers.findByPin('M_0006')).toBeNull();
  });

  it('stores a client and reads it back unchanged, with a generated UUID', async () => {
    const client = newClient();
    const saved = await clients.insert(client);
    expect(saved.id).toMatch(/^[0-9a-f-]{36}$/);
    const read = await clients.findById(saved.id);
    expect(read).toEqual({ ...client, id: saved.id });
  });

  it('refuses a second client with the same passport (constraint)', async () => {
    const first = newClient();
    await clients.insert(first);
    await expect(
      clients.insert(
        newClient({ passportSeries: first.passportSeries, passportNumber: first.passportNumber }),
      ),
    ).rejects.toThrow(PassportAlreadyRegisteredError);
  });

  it('lets exactly one of 10 concurrent inserts of one passport win', async () => {
    const passport = { passportSeries: '7777', passportNumber: '777777' };
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () => clients.insert(newClient(passport))),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const result of results.filter((r) => r.status === 'rejected')) {
      expect(result.reason).toBeInstanceOf(PassportAlreadyRegisteredError);
    }
  });

  it('reports a taken account number as AccountNumberTakenError (constraint)', async () => {
    const first = newClient();
    await clients.insert(first);
    const error: unknown = await clients
      .insert(newClient({ accountNumber: first.accountNumber }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AccountNumberTakenError);
    expect((error as AccountNumberTakenError).accountNumber).toBe(first.accountNumber);
  });

  it.each([
    ['an unknown manager', { managerPin: 'X_9999' }],
    ['a malformed account number', { accountNumber: '40702111000000000001' }],
    ['an unknown currency', { accountCurrency: 'GBP' }],
    ['an unknown gender', { gender: 'OTHER' }],
    ['a non-digit passport number', { passportNumber: '12345a' }],
  ])('refuses %s at the database level too', async (_, overrides) => {
    await expect(clients.insert(newClient(overrides as Partial<NewClient>))).rejects.toBeInstanceOf(
      QueryFailedError,
    );
  });

  it('replaces the passport and the actualization instant', async () => {
    const saved = await clients.insert(newClient());
    const later = new Date('2026-12-01T08:00:00.000Z');
    const updated = await clients.updatePassport(
      saved.id,
      {
        birthDate: '2000-02-29',
        birthPlace: 'Казань',
        passportIssueDate: '2026-11-30',
        passportSeries: '9999',
        passportNumber: '000001',
      },
      later,
    );
    expect(updated).toMatchObject({
      id: saved.id,
      birthPlace: 'Казань',
      passportIssueDate: '2026-11-30',
      passportSeries: '9999',
      passportNumber: '000001',
      registeredAt: saved.registeredAt,
      actualizedAt: later,
    });
  });

  it("updatePassport: null for an unknown id, conflict for another client's passport", async () => {
    const unknown = await clients.updatePassport(
      '00000000-0000-4000-8000-000000000000',
      {
        birthDate: '2000-01-01',
        birthPlace: 'x',
        passportIssueDate: '2020-01-01',
        passportSeries: '1111',
        passportNumber: '111111',
      },
      new Date(),
    );
    expect(unknown).toBeNull();

    const a = await clients.insert(newClient());
    const b = await clients.insert(newClient());
    await expect(
      clients.updatePassport(
        b.id,
        {
          birthDate: b.birthDate,
          birthPlace: b.birthPlace,
          passportIssueDate: b.passportIssueDate,
          passportSeries: a.passportSeries,
          passportNumber: a.passportNumber,
        },
        new Date(),
      ),
    ).rejects.toThrow(PassportAlreadyRegisteredError);
  });

  it('reverts and re-applies its migrations', async () => {
    await dataSource.query('DELETE FROM "clients"');
    await dataSource.undoLastMigration();
    await dataSource.undoLastMigration();
    await dataSource.undoLastMigration();
    const [{ count }] = await dataSource.query<{ count: string }[]>(
      `SELECT count(*) FROM information_schema.tables WHERE table_name IN ('clients', 'managers')`,
    );
    expect(Number(count)).toBe(0);
    const applied = await dataSource.runMigrations();
    expect(applied.map((m) => m.name)).toEqual([
      'CreateManagers1795394100000',
      'CreateClients1795394200000',
      'CreateClientIdempotencyKeys1795410000000',
    ]);
  });
});
