import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { PGLITE_TESTS } = require('../run-pglite-tests.js') as { PGLITE_TESTS: string[] };

const ROOT = join(__dirname, '..', '..', '..');

describe('the PGlite tier (tools/nx/run-pglite-tests.js)', () => {
  const tracked = execFileSync('git', ['ls-files', '*spec.ts'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);

  it.each(PGLITE_TESTS)(
    '%s names at least one test file (a rename would drop it silently)',
    (pattern) => {
      expect(tracked.filter((file) => new RegExp(pattern).test(file))).not.toEqual([]);
    },
  );

  it('keeps the database layer, the migrations, the embedded start and a flow per service', () => {
    const chosen = tracked.filter((file) => PGLITE_TESTS.some((p) => new RegExp(p).test(file)));
    for (const expected of [
      'libs/shared/database/src/embedded-postgres.integration-spec.ts',
      'apps/card-issue/src/database/schema-drift.integration-spec.ts',
      'apps/client-registration/src/database/schema-drift.integration-spec.ts',
      'apps/card-issue/src/database/embedded-default.e2e-spec.ts',
      'apps/client-registration/src/database/embedded-default.e2e-spec.ts',
      'apps/card-issue/src/card-issues/card-issues.e2e-spec.ts',
      'apps/client-registration/src/clients/clients.e2e-spec.ts',
    ])
      expect(chosen).toContain(expected);
  });
});
