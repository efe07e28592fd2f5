import { spawnSync } from 'node:child_process';
import { repoPath, REPO_ROOT } from './lib/openapi-documents';

/*
 * Jest strips types (SWC), so the typed-client tests alone would not notice a call that no
 * longer fits the generated types (a renamed path, a missing field): the compiler does.
 */
describe('typed clients', () => {
  it('type-check against the committed openapi/generated/*.d.ts (tsc --noEmit)', () => {
    const result = spawnSync(
      process.execPath,
      [
        repoPath('node_modules/typescript/bin/tsc'),
        '--noEmit',
        '-p',
        'tools/api-contract/tsconfig.json',
      ],
      { cwd: REPO_ROOT, encoding: 'utf8', timeout: 240_000 },
    );
    if (result.status !== 0) {
      throw new Error(
        `tsc failed (exit ${result.status}); if the documents changed, run \`npm run openapi\` ` +
          `and adapt the calls:\n${result.stdout}${result.stderr}`,
      );
    }
  }, 240_000);
});
