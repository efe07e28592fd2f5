import {
  createTestDatabase,
  startTestTokenIssuer,
  TestDatabase,
  TestServiceProcess,
  TestTokenIssuer,
} from '@bank/shared/testing';
import { spawnClientRegistration } from '../test/client-registration.harness';

/** AUTH_MODE at start-up of the service as its own process (main.ts, real logger). */
describe('AUTH_MODE at start-up (process)', () => {
  let db: TestDatabase;
  let issuer: TestTokenIssuer;
  let child: TestServiceProcess | undefined;

  beforeAll(async () => {
    db = await createTestDatabase('auth_processes');
    issuer = await startTestTokenIssuer();
  });

  afterEach(async () => {
    await child?.stop('SIGTERM');
    child = undefined;
  });

  afterAll(async () => {
    await issuer?.close();
    await db?.drop();
  });

  it('refuses to start in production without AUTH_MODE, naming the rule', async () => {
    await expect(
      spawnClientRegistration({ NODE_ENV: 'production', DATABASE_URL: db.url, LOG_LEVEL: 'info' }),
    ).rejects.toThrow(
      /exited with 1[\s\S]*AUTH_MODE: must be set explicitly with NODE_ENV=production/,
    );
  });

  it('starts in production with AUTH_MODE=none set on purpose, and warns', async () => {
    child = await spawnClientRegistration({
      NODE_ENV: 'production',
      AUTH_MODE: 'none',
      DATABASE_URL: db.url,
      LOG_LEVEL: 'info',
    });
    const warning = child
      .output()
      .split('\n')
      .find((line) => line.includes('AUTH_MODE=none in production'));
    expect(warning).toBeDefined();
    expect(JSON.parse(warning as string)).toMatchObject({ level: 40 });
  });

  it('never logs a bearer token, valid or refused, even at trace level', async () => {
    child = await spawnClientRegistration({
      ...(issuer.env() as Record<string, string>),
      DATABASE_URL: db.url,
      LOG_LEVEL: 'trace',
    });
    const valid = await issuer.sign({ scope: 'clients:read' });
    const refused = await issuer.sign({ scope: 'clients:read' }, { expiresIn: -3600 });
    for (const token of [valid, refused]) {
      const res = await fetch(`${child.url}/api/clients/3f2b8c1e-9a4d-4e57-b1c2-7d6e5f4a3b21`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect([404, 401]).toContain(res.status);
    }
    await child.stop('SIGTERM');
    const output = child.output();
    expect(output).toContain('"statusCode":401');
    for (const token of [valid, refused]) {
      // Neither the whole token nor its signature part.
      expect(output).not.toContain(token);
      expect(output).not.toContain(token.split('.')[2]);
    }
  });
});
