import request from 'supertest';
import { eventually, RunningTestService } from '@bank/shared/testing';
import { startCardIssue } from '../../test/card-issue.harness';
import { selfVirtual } from '../../test/card-issue-requests.fixture';
import { json, StubServer } from '../../test/stub-server';

const API = '/api/v1/card-issue';

/**
 * X-Request-Id beyond the first hop, with tracing off (no SDK in this process): every downstream
 * call of a request carries its id, and so does the outbox delivery that happens after it.
 */
describe('X-Request-Id on downstream calls and through the outbox (e2e)', () => {
  const userService = new StubServer();
  const operationService = new StubServer();
  let t: RunningTestService;

  beforeAll(async () => {
    const [usersUrl, operationsUrl] = await Promise.all([
      userService.start(),
      operationService.start(),
    ]);
    // Unknown users (the request is stored FAILED) and an operation service that is down: the
    // calls are what counts here, not their outcome.
    userService.reset((_req, res) => json(res, 404, { message: 'not found' }));
    operationService.reset((_req, res) => json(res, 503, { message: 'down' }));
    t = await startCardIssue({
      label: 'request_id',
      env: {
        USER_API_URL: usersUrl,
        OPERATION_API_URL: operationsUrl,
        SCHEDULER_ENABLED: 'false',
        OUTBOX_ENABLED: 'true',
        OUTBOX_RETRY_BASE_MS: '60000',
        DOWNSTREAM_RETRIES: '0',
      },
    });
  });

  afterAll(async () => {
    await t?.close();
    await Promise.all([userService.stop(), operationService.stop()]);
  });

  it("forwards the caller's X-Request-Id to the user service, each request its own", async () => {
    const ids = ['rid-parallel-a', 'rid-parallel-b', 'rid-parallel-c'];
    const owners = ['XAAAA1', 'XBBBB2', 'XCCCC3'];
    const answers = await Promise.all(
      ids.map((id, i) =>
        request(t.url).post(API).set('X-Request-Id', id).send(selfVirtual(owners[i])),
      ),
    );
    answers.forEach((res, i) => {
      expect(res.status).toBe(201);
      expect(res.headers['x-request-id']).toBe(ids[i]);
    });
    for (const [i, owner] of owners.entries()) {
      const calls = userService.hits.filter((hit) => hit.url.includes(owner));
      expect(calls.length).toBeGreaterThan(0);
      expect(calls.map((hit) => hit.requestId)).toEqual(calls.map(() => ids[i]));
    }
  });

  it('forwards the id the service generated when the caller sent none', async () => {
    const res = await request(t.url).post(API).send(selfVirtual('XDDDD4'));
    expect(res.status).toBe(201);
    const generated = res.headers['x-request-id'];
    expect(generated).toMatch(/^[0-9a-f-]{36}$/);
    const calls = userService.hits.filter((hit) => hit.url.includes('XDDDD4'));
    expect(calls.map((hit) => hit.requestId)).toEqual(calls.map(() => generated));
  });

  it('stores the request id with the outbox message and sends it with the delivery', async () => {
    const res = await request(t.url)
      .post(API)
      .set('X-Request-Id', 'rid-outbox-1')
      .send(selfVirtual('XEEEE5'));
    expect(res.status).toBe(201);
    const requestId = res.body.requestId as string;
    const [message] = await t.dataSource.query<{ trace_context: unknown }[]>(
      `SELECT trace_context FROM outbox_messages WHERE request_id = $1`,
      [requestId],
    );
    expect(message.trace_context).toEqual({ 'x-request-id': 'rid-outbox-1' });
    await eventually(async () => operationService.hits.some((hit) => hit.body.includes(requestId)));
    const delivery = operationService.hits.find((hit) => hit.body.includes(requestId));
    expect(delivery?.requestId).toBe('rid-outbox-1');
  });
});
