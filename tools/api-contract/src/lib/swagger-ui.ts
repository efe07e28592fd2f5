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

export function launchChromium(): Promise<Browser> {
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
 * The Swagger UI check of one service, declared inside that service's describe: the page
 * served at /docs lists every operation of the document served at /docs-json, and renders.
 */
export function describeSwaggerUi(serviceUrl: () => string, screenshotName: string): void {
  describeWithBrowser('Swagger UI in headless Chromium', () => {
    let browser: Browser;

    beforeAll(async () => {
      browser = await launchChromium();
    });

    afterAll(async () => {
      await browser?.close();
    });

    it('lists every operation of the served document and renders', async () => {
      const url = serviceUrl();
      const document = (await (await fetch(`${url}/docs-json`)).json()) as OpenApiDocument;
      const page = await readSwaggerUi(browser, url, screenshotName);

      expect(page.title).toContain(document.info.title);
      expect([...page.operations].sort()).toEqual(operationsOf(document).sort());
      expect(statSync(page.screenshot).size).toBeGreaterThan(10_000);
    });
  });
}
