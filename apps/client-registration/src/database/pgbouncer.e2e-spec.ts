import request from 'supertest';
import {
  createTestDatabase,
  pgBouncerTestsRun,
  PgBouncer,
  startPgBouncer,
  TestDatabase,
  TestServiceProcess,
} from '@bank/shared/testing';
import { spawnClientRegistration } from '../../test/client-registration.harness';
import { registration } from '../../test/client-request.fixture';

/**
 * client-registration with its requests through a real PgBouncer in transaction pooling mode
 * (fewer server connections than its pool), the migrations on the direct URL.
 */
(pgBouncerTestsRun() ? describe : describe.skip)(
  'client-registration behind PgBouncer in transaction pooling mode (e2e)',
  () => {
    let db: TestDatabase;
    let bouncer: PgBouncer;
    let service: TestServiceProcess | undefined;

    beforeAll(async () => {
      db = await createTestDatabase('client_registration_pgbouncer');
      bouncer = await startPgBouncer(db.url, 2);
    });

    afterAll(async () => {
      if (service && service.proc.exitCode === null && service.proc.signalCode === null)
        service.proc.kill('SIGKILL');
      await bouncer?.stop();
      await db?.drop();
    });

    it('registers clients in parallel and reads them back', async () => {
      service = await spawnClientRegistration(
        {
          DATABASE_URL: bouncer.pooledUrl(db.url),
          DATABASE_DIRECT_URL: db.url,
          DB_POOL_SIZE: '8',
          LOG_LEVEL: 'silent',
        },
        60_000,
      );
      const url = service.url;
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          request(url)
            .post('/api/clients')
            .set('Idempotency-Key', `pgbouncer-${i}`)
            .send(registration()),
        ),
      );
      for (const res of answers) expect(res.status).toBe(201);
      const ids = new Set(answers.map((res) => res.body.id as string));
      expect(ids.size).toBe(30);
      const [first] = answers;
      const read = await request(url).get(`/api/clients/${first.body.id}`);
      expect([read.status, read.body.id]).toEqual([200, first.body.id]);
    });
  },
);
