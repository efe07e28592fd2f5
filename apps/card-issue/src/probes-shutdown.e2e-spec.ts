import request from 'supertest';
import { eventually } from '@bank/shared/testing';
import { startCardIssue } from '../test/card-issue.harness';
import { selfVirtual } from '../test/card-issue-requests.fixture';
import { createUser } from '../test/users.fixture';
import { StubServer } from '../test/stub-server';

describe('readiness during the shutdown (e2e)', () => {
  it('is 503 from the first shutdown hook on, while work in flight still finishes; live stays 200', async () => {
    // An operation service that never answers holds an outbox delivery in flight, which the
    // shutdown waits for (OutboxService.beforeApplicationShutdown): the window a probe sees.
    const operations = new StubServer();
    operations.handler = () => undefined;
    const base = await operations.start();
    const t = await startCardIssue({
      label: 'card_issue_ready_shutdown',
      env: {
        SCHEDULER_ENABLED: 'false',
        OPERATION_API_URL: `${base}/operation-api`,
        DOWNSTREAM_TIMEOUT_MS: '3000',
        DOWNSTREAM_REQUEST_BUDGET_MS: '3000',
      },
    });
    let closing: Promise<void> | undefined;
    try {
      await request(t.url).get('/api/health/ready').expect(200);
      const owner = await createUser(t.url);
      await request(t.url).post('/api/v1/card-issue').send(selfVirtual(owner)).expect(201);
      await eventually(async () => operations.hits.length > 0);
      closing = t.close();
      await eventually(
        async () => (await fetch(`${t.url}/api/health/ready`)).status === 503,
        2_000,
      );
      const ready = await request(t.url).get('/api/health/ready').expect(503);
      expect(ready.body).toEqual({ status: 'DOWN', service: 'card-issue' });
      await request(t.url).get('/api/health/live').expect(200);
      await closing;
    } finally {
      await (closing ?? t.close());
      await operations.stop();
    }
  });
});
