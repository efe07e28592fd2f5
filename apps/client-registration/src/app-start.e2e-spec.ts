import { createServer, Server } from 'node:net';
import { createTestDatabase, runServiceCommand, TestDatabase } from '@bank/shared/testing';
import {
  CLIENT_REGISTRATION_MAIN,
  spawnClientRegistration,
} from '../test/client-registration.harness';

// What `npm start` / `nx serve` shows a developer: where the service is, readable lines in
// development (JSON elsewhere), and which variable moves a port that is taken.
describe('service start (process)', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('client_registration_start');
  });

  afterAll(() => db?.drop());

  it('logs its URL, Swagger UI and health URLs as JSON by default outside development', async () => {
    const service = await spawnClientRegistration({ DATABASE_URL: db.url, LOG_LEVEL: 'info' });
    await service.stop('SIGTERM');
    const line = service
      .output()
      .split('\n')
      .find((text) => text.includes('Listening at'));
    expect(JSON.parse(line ?? '')).toMatchObject({
      service: 'client-registration',
      context: 'NestApplication',
      msg: `Listening at ${service.url} (Swagger UI ${service.url}/docs, health ${service.url}/api/health)`,
    });
  });

  it('writes readable lines with LOG_FORMAT=pretty (the development default)', async () => {
    const service = await spawnClientRegistration({
      DATABASE_URL: db.url,
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'pretty',
    });
    const missing = '/api/clients/00000000-0000-4000-8000-000000000000';
    expect((await fetch(`${service.url}${missing}`)).status).toBe(404);
    await service.stop('SIGTERM');
    expect(service.output()).toMatch(
      new RegExp(
        `\\] WARN: client-registration request completed: GET ${missing} 404 \\d+ ms \\(request [0-9a-f-]{36}\\)`,
      ),
    );
    const line = service
      .output()
      .split('\n')
      .find((text) => text.includes('Listening at'));
    expect(line).toBeDefined();
    expect(line).not.toMatch(/^\s*\{/);
    expect(line).not.toContain('"context"');
    expect(line).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: client-registration \[NestApplication\] Listening at http:\/\/127\.0\.0\.1:\d+ \(Swagger UI /,
    );
  });

  describe('with its port taken', () => {
    let taken: Server;

    beforeAll(async () => {
      taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    });

    afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

    it('CLIENT_REGISTRATION_PORT wins over PORT, and a taken port names both variables', async () => {
      const port = (taken.address() as { port: number }).port;
      const run = await runServiceCommand(CLIENT_REGISTRATION_MAIN, [], {
        DATABASE_URL: db.url,
        HOST: '127.0.0.1',
        PORT: '0',
        CLIENT_REGISTRATION_PORT: String(port),
        LOG_LEVEL: 'silent',
      });
      expect(run.code).toBe(1);
      expect(run.output).toContain(
        `Port ${port} on 127.0.0.1 is in use: choose another with CLIENT_REGISTRATION_PORT or PORT`,
      );
    });
  });
});
