import request from 'supertest';
import {
  createTestDatabase,
  RunningTestService,
  scrape,
  TestDatabase,
  TestServiceProcess,
  valueOf,
} from '@bank/shared/testing';
import {
  spawnClientRegistration,
  startClientRegistration,
} from '../../test/client-registration.harness';

const SERVICE = 'client-registration';

describe('probes (e2e)', () => {
  it('live and ready answer UP; /api/health keeps the spec body', async () => {
    const t = await startClientRegistration({ label: 'registration_probes' });
    try {
      const live = await request(t.url).get('/api/health/live').expect(200);
      expect(live.body).toEqual({ status: 'UP', service: SERVICE });
      const ready = await request(t.url).get('/api/health/ready').expect(200);
      expect(ready.body).toEqual({ status: 'UP', service: SERVICE });
      const health = await request(t.url).get('/api/health').expect(200);
      expect(health.body).toEqual({
        status: 'UP',
        service: SERVICE,
        checks: { database: { status: 'UP' } },
      });
    } finally {
      await t.close();
    }
  });

  it('without its database the pod stays alive but is not ready, and db_up says why', async () => {
    const t: RunningTestService = await startClientRegistration({ label: 'registration_nodb' });
    try {
      // The pool closed under the running service: every query fails as in an outage.
      await t.dataSource.destroy();
      await request(t.url).get('/api/health/live').expect(200);
      const ready = await request(t.url).get('/api/health/ready').expect(503);
      expect(ready.body).toEqual({ status: 'DOWN', service: SERVICE });
      const health = await request(t.url).get('/api/health').expect(503);
      expect(health.body).toEqual({
        status: 'DOWN',
        service: SERVICE,
        checks: { database: { status: 'DOWN' } },
      });
      expect(valueOf(await scrape(`${t.url}/metrics`), 'db_up')).toBe(0);
    } finally {
      await t.close();
    }
  });

  it('under BASE_PATH the probes move with the prefix', async () => {
    const t = await startClientRegistration({
      label: 'registration_probes_base',
      env: { BASE_PATH: '/registration' },
    });
    try {
      await request(t.url).get('/registration/api/health/live').expect(200);
      await request(t.url).get('/registration/api/health/ready').expect(200);
      await request(t.url).get('/api/health/live').expect(404);
    } finally {
      await t.close();
    }
  });

  describe('logs of a process at info', () => {
    let db: TestDatabase;
    let child: TestServiceProcess | undefined;
    beforeAll(async () => {
      db = await createTestDatabase('registration_probe_logs');
    });
    afterAll(async () => {
      await child?.stop('SIGTERM');
      await db.drop();
    });

    it('do not hold the probes and the scrapes, only the requests that matter', async () => {
      child = await spawnClientRegistration({ DATABASE_URL: db.url, LOG_LEVEL: 'info' });
      const before = child.output().length;
      for (const path of ['/api/health', '/api/health/live', '/api/health/ready', '/metrics'])
        expect((await fetch(`${child.url}${path}`)).status).toBe(200);
      await fetch(`${child.url}/api/clients/probe-log-marker`);
      await fetch(`${child.url}/api/health/ready?probe-log-marker`);
      const lines = child
        .output()
        .slice(before)
        .split('\n')
        .filter((line) => line.includes('"url"'));
      const urls = lines.map((line) => (JSON.parse(line) as { req: { url: string } }).req.url);
      expect(urls).toEqual(['/api/clients/probe-log-marker']);
    });
  });
});
