import { Browser } from 'playwright-core';
import { RunningTestService } from '@bank/shared/testing';
import { startCardIssue } from '@bank/card-issue/testing';
import { OpenApiDocument } from './lib/openapi-documents';
import { SERVICES, TEST_X_SECRET } from './lib/services';
import { describeWithBrowser, launchChromium, readSwaggerUi, tryItOut } from './lib/swagger-ui';

/** A made-up host name Chromium resolves to the loopback (neither localhost nor a real name). */
const HOST = 'card-issue.bank.internal';
const BASE_PATH = '/card-issue';

/*
 * Swagger UI as a deployment serves it: under a base path (BASE_PATH, an ingress prefix) and
 * over plain HTTP under a host name other than localhost (a browser applies a CSP's
 * upgrade-insecure-requests there, so the page's assets would go to https and the page stay
 * blank). "Try it out" must call {base}/api/..., not {base}{base}/api/....
 */
describe('Swagger UI of a deployment under a base path and a host name (api-contract)', () => {
  let t: RunningTestService;
  let origin: string;

  beforeAll(async () => {
    t = await startCardIssue({
      label: 'api_contract_base_path',
      env: { ...SERVICES['card-issue'].overrides, BASE_PATH },
    });
    origin = `http://${HOST}:${new URL(t.url).port}`;
  });

  afterAll(async () => {
    await t?.close();
  });

  it.each(['', '/user-api'])(
    'the %s document names the base path once: as its server, not in its paths',
    async (prefix) => {
      const document = (await (
        await fetch(`${t.url}${BASE_PATH}${prefix}/docs-json`)
      ).json()) as OpenApiDocument & { servers: { url: string }[] };
      expect(document.servers).toEqual([{ url: `${BASE_PATH}${prefix}` }]);
      const paths = Object.keys(document.paths);
      expect(paths.length).toBeGreaterThan(0);
      expect(paths.filter((route) => !route.startsWith('/api/'))).toEqual([]);
    },
  );

  it('no Content-Security-Policy directive upgrades the page to https', async () => {
    const page = await fetch(`${t.url}${BASE_PATH}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).not.toMatch(/upgrade-insecure-requests/);
  });

  describeWithBrowser('in headless Chromium', () => {
    let browser: Browser;

    beforeAll(async () => {
      browser = await launchChromium([`--host-resolver-rules=MAP ${HOST} 127.0.0.1`]);
    });

    afterAll(async () => {
      await browser?.close();
    });

    it('renders over plain HTTP under a host name other than localhost, every asset over http', async () => {
      const page = await readSwaggerUi(browser, `${origin}${BASE_PATH}`, 'deployment-swagger-ui');
      expect(page.title).toContain('Card issue service');
      expect(page.operations).toContain('POST /api/v1/card-issue');
    });

    it('"Try it out" of the card issue API calls the base path once and gets 200', async () => {
      const result = await tryItOut(
        browser,
        `${origin}${BASE_PATH}/docs`,
        { method: 'GET', path: '/api/health' },
        undefined,
        'deployment-try-it-out',
      );
      expect(result.requestUrl).toBe(`${origin}${BASE_PATH}/api/health`);
      expect(result.status).toBe(200);
      expect(result.requested.filter((url) => !url.startsWith(`${origin}/`))).toEqual([]);
    });

    it('"Try it out" of a reference service, authorized with X-secret, gets 200', async () => {
      const result = await tryItOut(
        browser,
        `${origin}${BASE_PATH}/branch-api/docs`,
        { method: 'GET', path: '/api/v1/branches' },
        TEST_X_SECRET,
        'deployment-try-it-out-branch-api',
      );
      expect(result.requestUrl).toBe(`${origin}${BASE_PATH}/branch-api/api/v1/branches`);
      expect(result.status).toBe(200);
    });
  });
});
