import { FUZZ_RUNS, FUZZ_TIMEOUT_MS, fuzzEndpoint } from './support/fuzz';
import { sendJson } from './support/http';
import { RunningTestService } from '@bank/shared/testing';
import {
  NOW,
  passportData,
  registration,
  startClientRegistration,
} from '@bank/client-registration/testing';
import { registrationRowCounts } from './support/row-counts';
import { FixedClock } from '@bank/shared/calendar';

/** Property-based fuzzing of both write endpoints of client-registration. One app for the file. */
describe(`client-registration write endpoints under fuzzing (${FUZZ_RUNS} cases each)`, () => {
  let s: RunningTestService;
  let clientId: string;

  beforeAll(async () => {
    s = await startClientRegistration({ label: 'robust_fuzz_reg', clock: new FixedClock(NOW) });
    const created = await sendJson(`${s.url}/api/clients`, 'POST', registration());
    clientId = (created.body as { id: string }).id;
    if (!clientId) throw new Error(`client not created: ${created.text}`);
  });

  afterAll(async () => {
    await s?.close();
  });

  const state = () => registrationRowCounts(s.dataSource);

  it(
    'POST /api/clients',
    async () => {
      const stats = await fuzzEndpoint({
        send: (body) => sendJson(`${s.url}/api/clients`, 'POST', body),
        valid: () => registration(),
        shape: 'registration',
        state,
      });
      expect(stats.statuses[400]).toBeGreaterThan(0);
      expect(stats.statuses[201]).toBeGreaterThan(0);
    },
    FUZZ_TIMEOUT_MS,
  );

  // Regression: a NUL character used to reach PostgreSQL (500); TextSafetyPipe refuses it.
  it('POST /api/clients with a NUL character in lastName answers 400', async () => {
    const res = await sendJson(
      `${s.url}/api/clients`,
      'POST',
      registration({ lastName: 'Пет\u0000ров' }),
    );
    expect(res.status).toBe(400);
  });

  it(
    'PUT /api/clients/{id}/passport',
    async () => {
      const stats = await fuzzEndpoint({
        send: (body) => sendJson(`${s.url}/api/clients/${clientId}/passport`, 'PUT', body),
        valid: () => ({ passportData: passportData() }),
        shape: 'registration',
        state,
      });
      expect(stats.statuses[400]).toBeGreaterThan(0);
      expect(stats.statuses[200]).toBeGreaterThan(0);
    },
    FUZZ_TIMEOUT_MS,
  );
});
