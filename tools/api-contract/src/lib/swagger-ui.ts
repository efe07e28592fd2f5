import { existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { Browser, chromium } from 'playwright-core';
import { OpenApiDocument, operationsOf, repoPath } from './openapi-documents';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it when missing). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * The browser tests run whenever Chromium is installed and are mandatory in CI (.ci/run
 * installs it); on a developer machine without it they are reported as skipped, so
 * `npm ci && npm test` still passes there.
 */
export const describeWithBrowser: jest.Describe =
  existsSync(CHROMIUM_PATH) || process.env.CI ? describe : describe.skip;

/** Screenshots of the Swagger UI pages (git-ignored: tmp/). */
export const SCREENSHOT_DIR = repoPath('tmp', 'screenshots');

/** Headless Chromium; `args` adds flags (e.g. --host-resolver-rules). */
export function launchChromium(args: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...args,
    ],
  });
}

export interface SwaggerUiPage {
  /** Every operation the page lists, as "METHOD /path". */
  operations: string[];
  title: string;
  screenshot: string;
}

/**
 * Opens {baseUrl}/docs, waits until Swagger UI has rendered the document's operations,
 * reads them off the page and saves a full-page screenshot.
 */
export async function readSwaggerUi(
  browser: Browser,
  baseUrl: string,
  screenshotName: string,
): Promise<SwaggerUiPage> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  try {
    await page.goto(`${baseUrl}/docs`, { waitUntil: 'load' });
    await page.waitForSelector('.opblock .opblock-summary-method', { timeout: 30_000 });
    const operations = await page.$$eval('.opblock', (blocks) =>
      blocks.map((block) => {
        const method = block.querySelector('.opblock-summary-method')?.textContent ?? '';
        const pathElement = block.querySelector('.opblock-summary-path');
        const route = pathElement?.getAttribute('data-path') ?? pathElement?.textContent ?? '';
        return `${method.trim().toUpperCase()} ${route.replace(/\u200b/g, '').trim()}`;
      }),
    );
    const title = (await page.locator('.info .title').first().textContent()) ?? '';
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const screenshot = path.join(SCREENSHOT_DIR, `${screenshotName}.png`);
    await page.screenshot({ path: screenshot, fullPage: true });
    return { operations, title, screenshot };
  } finally {
    await page.close();
  }
}

/**
 * The Swagger UI checks of a service's documents, declared inside that service's describe:
 * the page served at {url}{prefix}/docs lists every operation of the document served at
 * {url}{prefix}/docs-json, and renders. One browser for all of them.
 */
export function describeSwaggerUi(
  serviceUrl: () => string,
  pages: { prefix: string; screenshot: string }[],
): void {
  describeWithBrowser('Swagger UI in headless Chromium', () => {
    let browser: Browser;

    beforeAll(async () => {
      browser = await launchChromium();
    });

    afterAll(async () => {
      await browser?.close();
    });

    it.each(pages)(
      '$prefix/docs lists every operation of $prefix/docs-json and renders',
      async ({ prefix, screenshot }) => {
        const url = `${serviceUrl()}${prefix}`;
        const document = (await (await fetch(`${url}/docs-json`)).json()) as OpenApiDocument;
        const page = await readSwaggerUi(browser, url, screenshot);

        expect(page.title).toContain(document.info.title);
        expect([...page.operations].sort()).toEqual(operationsOf(document).sort());
        expect(statSync(page.screenshot).size).toBeGreaterThan(10_000);
      },
    );
  });
}

export interface TryItOutResult {
  /** The status Swagger UI shows for the live response. */
  status: number;
  /** The URL Swagger UI called, as it shows it. */
  requestUrl: string;
  /** Every URL the page requested (assets, the document, the call). */
  requested: string[];
}

/**
 * What a person does in Swagger UI at {docsPageUrl}: optionally "Authorize" with an apiKey,
 * expand one operation, click "Try it out", then "Execute", and read the live response.
 */
export async function tryItOut(
  browser: Browser,
  docsPageUrl: string,
  operation: { method: string; path: string },
  apiKey?: string,
  screenshotName?: string,
): Promise<TryItOutResult> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const requested: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  try {
    await page.goto(docsPageUrl, { waitUntil: 'load' });
    await page.waitForSelector('.opblock .opblock-summary-method', { timeout: 30_000 });
    if (apiKey !== undefined) {
      await page.locator('button.authorize').first().click();
      await page.locator('.auth-container input').first().fill(apiKey);
      await page.locator('.auth-btn-wrapper button.authorize').first().click();
      await page.locator('button.btn-done').first().click();
    }
    const block = page.locator(`.opblock-${operation.method.toLowerCase()}`, {
      has: page.locator(`.opblock-summary-path[data-path="${operation.path}"]`),
    });
    await block.locator('.opblock-summary').first().click();
    await block.locator('button.try-out__btn').click();
    await block.locator('button.execute').click();
    const status = block.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor({ timeout: 30_000 });
    const requestUrl = (await block.locator('.request-url pre').first().textContent()) ?? '';
    if (screenshotName) {
      mkdirSync(SCREENSHOT_DIR, { recursive: true });
      await page.screenshot({
        path: path.join(SCREENSHOT_DIR, `${screenshotName}.png`),
        fullPage: true,
      });
    }
    return {
      status: Number.parseInt(((await status.textContent()) ?? '').trim(), 10),
      requestUrl: requestUrl.trim(),
      requested,
    };
  } finally {
    await page.close();
  }
}
