import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '../../..');

describe('package-lock.json', () => {
  it('records every optional platform binary, so `npm ci` accepts it', () => {
    // Throws (exit 1) when an `npm install` dropped entries the registry here cannot serve.
    const output = execFileSync(
      process.execPath,
      ['tools/scripts/complete-lockfile.mjs', '--check'],
      { cwd: ROOT },
    ).toString();
    expect(output).toContain('complete-lockfile: complete');
  });
});
