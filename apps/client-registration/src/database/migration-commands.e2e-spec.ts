import { createTestDatabase, runServiceCommand, TestDatabase } from '@bank/shared/testing';
import { CLIENT_REGISTRATION_MAIN } from '../../test/client-registration.harness';

// `nx run client-registration:migration-show` (main.ts migrate:show, the code both services
// share): a deployment step can wait on its exit code.
describe('migration commands (process)', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('client_registration_migration_commands');
  });

  afterAll(() => db?.drop());

  const run = (command: string) =>
    runServiceCommand(CLIENT_REGISTRATION_MAIN, [command], { DATABASE_URL: db.url });

  it('migrate:show exits 1 while migrations are pending and 0 once they are applied', async () => {
    const pending = await run('migrate:show');
    expect(pending.output).toContain('There are pending migrations');
    expect(pending.code).toBe(1);

    const migrate = await run('migrate');
    expect(migrate.output).toMatch(/Applied: /);
    expect(migrate.code).toBe(0);

    const applied = await run('migrate:show');
    expect(applied.output).toContain('All migrations are applied');
    expect(applied.code).toBe(0);
  });
});
