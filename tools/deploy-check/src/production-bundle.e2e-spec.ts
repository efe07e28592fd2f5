import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestDatabase, TestDatabase } from '@bank/shared/testing';
import { repoPath } from './lib/repo';

/**
 * The production bundle (`nx build`, what the image's runtime stage copies) with only its
 * generated dependencies: PGlite is not among them, and the bundle starts and migrates
 * without it, as in the image where `npm ci --omit=dev` leaves it out. A require hook plays
 * the image: any attempt to load @electric-sql/pglite* fails as a missing module would.
 */
/** A production X_SECRET passes its rules (32 characters or more). */
const PRODUCTION_X_SECRET = 'bundle-test-x-secret-of-32-characters-or-more';

describe('production bundle without PGlite (e2e)', () => {
  const dist = repoPath('dist', 'apps', 'card-issue');
  let db: TestDatabase;
  let dir: string;
  let blocker: string;

  beforeAll(async () => {
    execFileSync('npx', ['nx', 'build', 'card-issue', '--skip-nx-cache'], {
      cwd: repoPath(),
      stdio: 'pipe',
      env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' },
    });
    db = await createTestDatabase('production_bundle');
    dir = mkdtempSync(path.join(tmpdir(), 'bundle-'));
    blocker = path.join(dir, 'no-pglite.js');
    writeFileSync(
      blocker,
      `const Module = require('node:module');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (/^@electric-sql\\/pglite/.test(request)) {
    const error = new Error("Cannot find module '" + request + "'");
    error.code = 'MODULE_NOT_FOUND';
    throw error;
  }
  return resolve.call(this, request, ...rest);
};
`,
    );
  }, 300_000);

  afterAll(async () => {
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function run(args: string[], env: Record<string, string>) {
    return new Promise<{ code: number | null; output: string }>((resolve) => {
      const proc = spawn(process.execPath, ['-r', blocker, path.join(dist, 'main.js'), ...args], {
        cwd: dist,
        env: {
          PATH: process.env.PATH ?? '',
          NODE_ENV: 'production',
          LOG_LEVEL: 'silent',
          AUTH_MODE: 'none',
          X_SECRET: PRODUCTION_X_SECRET,
          ...env,
        },
      });
      let output = '';
      proc.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      proc.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      proc.on('exit', (code) => resolve({ code, output }));
    });
  }

  it('its generated package files do not list PGlite', () => {
    for (const file of ['package.json', 'package-lock.json']) {
      const text = readFileSync(path.join(dist, file), 'utf8');
      expect(text).toContain('"typeorm"');
      expect(text).not.toContain('@electric-sql');
    }
  });

  it('migrates a PostgreSQL database without loading PGlite', async () => {
    const { code, output } = await run(['migrate'], { DATABASE_URL: db.url });
    expect([code, output]).toEqual([0, expect.stringContaining('Applied')]);
  }, 60_000);

  it('refuses to start without DATABASE_URL', async () => {
    const { code, output } = await run([], {});
    expect(code).toBe(1);
    expect(output).toContain('DATABASE_URL is required when NODE_ENV=production');
  }, 60_000);

  it('with ALLOW_EMBEDDED_DATABASE=true says that the embedded database is not installed', async () => {
    const { code, output } = await run(['migrate'], {
      ALLOW_EMBEDDED_DATABASE: 'true',
    });
    expect(code).toBe(1);
    expect(output).toContain(
      'The embedded database (PGlite, a development dependency) is not installed here',
    );
  }, 60_000);
});
