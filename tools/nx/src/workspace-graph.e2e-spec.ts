import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

/** `nx show projects <args>` on this workspace, as a sorted list. */
function projects(...args: string[]): string[] {
  const out = execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules/nx/bin/nx.js'), 'show', 'projects', ...args],
    {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' },
      timeout: 120_000,
    },
  );
  return out.split('\n').filter(Boolean).sort();
}

// The real project graph with the test-tiers plugin registered in nx.json.
describe('Nx workspace graph (process)', () => {
  it('gives `test` to the projects with tests and to no other', () => {
    const withTest = projects('--with-target', 'test');
    expect(withTest).toEqual(
      expect.arrayContaining(['card-issue', 'client-registration', 'nx-tools', 'bench']),
    );
    // Libraries without a test file and projects without Jest get no test target.
    for (const name of ['shared-errors', 'openapi']) {
      expect(withTest).not.toContain(name);
    }
    expect(projects('--with-target', 'test:integration')).toEqual(
      expect.arrayContaining(['card-issue', 'client-registration']),
    );
  });

  it.each([
    ['k8s/card-issue/deployment.yaml', 'deploy-check'],
    ['docker-compose.yml', 'deploy-check'],
    ['apps/client-registration/Dockerfile', 'deploy-check'],
    ['openapi/card-issue.json', 'api-contract'],
  ])('a change to %s makes %s affected', (file, project) => {
    expect(projects('--affected', `--files=${file}`)).toContain(project);
  });
});
