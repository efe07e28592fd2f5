import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const root = join(__dirname, '..', '..', '..', '..');

// npm itself, with the project's .npmrc: an install on a Node.js outside `engines` stops before
// installing anything. (A project whose engines exclude the running Node.js stands in for
// running npm on an unsupported one.)
describe('npm with the project .npmrc', () => {
  const dir = mkdtempSync(join(tmpdir(), 'engines-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses to install on a Node.js outside engines, naming the required version', async () => {
    copyFileSync(join(root, '.npmrc'), join(dir, '.npmrc'));
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'engines-check', version: '1.0.0', engines: { node: '>=99' } }),
    );
    const npm = promisify(execFile)('npm', ['install', '--no-audit', '--no-fund'], { cwd: dir });
    await expect(npm).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/EBADENGINE[\s\S]*Required: \{"node":">=99"\}/),
    });
  });
});
