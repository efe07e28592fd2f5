import { execFileSync } from 'node:child_process';
import { readText, REPO_ROOT, repoPath } from './lib/repo';

describe('package-lock.json', () => {
  it('records every optional platform binary, so `npm ci` accepts it', () => {
    // Throws (exit 1) when an `npm install` dropped entries the registry here cannot serve.
    const output = execFileSync(
      process.execPath,
      ['tools/scripts/complete-lockfile.mjs', '--check'],
      { cwd: REPO_ROOT },
    ).toString();
    expect(output).toContain('complete-lockfile: complete');
  });

  it('has every install script of a dependency reviewed in package.json allowScripts', () => {
    const lock = readJson('package-lock.json') as {
      packages: Record<string, { hasInstallScript?: boolean }>;
    };
    const allowScripts =
      (readJson('package.json') as { allowScripts?: Record<string, boolean> }).allowScripts ?? {};
    const withScripts = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.hasInstallScript)
      .map(([path]) => path.replace(/^(.*\/)?node_modules\//, ''));
    // npm 12 skips an install script that allowScripts does not name
    // (docs/decisions/0009-install-scripts-reviewed.md).
    expect(withScripts.filter((name) => !(name in allowScripts))).toEqual([]);
    // An entry whose package no longer has an install script is a review nobody needs.
    expect(Object.keys(allowScripts).filter((name) => !withScripts.includes(name))).toEqual([]);
  });
});

function readJson(file: string): unknown {
  return JSON.parse(readText(repoPath(file)));
}
