import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The plugin is plain CommonJS (nx.json and jest.preset.js load it without a compiler).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const tiers = require('../test-tiers.js') as {
  testMatch(tier?: string): string[];
  tierOf(file: string): string | undefined;
  tiersIn(root: string): string[];
  testTargets(root: string, tiers: string[]): Record<string, Record<string, unknown>>;
};

describe('test tiers (tools/nx/test-tiers.js)', () => {
  it('classifies a file by its suffix alone', () => {
    expect(tiers.tierOf('cards.service.spec.ts')).toBe('unit');
    expect(tiers.tierOf('cards.repository.integration-spec.ts')).toBe('integration');
    expect(tiers.tierOf('cards.e2e-spec.ts')).toBe('e2e');
    expect(tiers.tierOf('cards.service.ts')).toBeUndefined();
    expect(tiers.tierOf('cards.harness.spec.js')).toBeUndefined();
  });

  it('Jest runs the same files per tier, under src/ and test/', () => {
    expect(tiers.testMatch('unit')).toEqual([
      '<rootDir>/src/**/*.spec.ts',
      '<rootDir>/test/**/*.spec.ts',
    ]);
    expect(tiers.testMatch('e2e')).toEqual([
      '<rootDir>/src/**/*.e2e-spec.ts',
      '<rootDir>/test/**/*.e2e-spec.ts',
    ]);
    expect(tiers.testMatch()).toHaveLength(6);
    expect(() => tiers.testMatch('smoke')).toThrow(/JEST_TIER=smoke/);
  });

  describe('in a project', () => {
    let root: string;

    beforeEach(() => {
      root = mkdtempSync(join(tmpdir(), 'test-tiers-'));
    });

    afterEach(() => rmSync(root, { recursive: true, force: true }));

    const touch = (path: string) => {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), '');
    };

    it('finds only the tiers it has files of, a new file included at once', () => {
      touch('src/a/b.spec.ts');
      touch('test/c.e2e-spec.ts');
      touch('node_modules/x/d.integration-spec.ts');
      expect(tiers.tiersIn(root)).toEqual(['unit', 'e2e']);
      touch('src/db.integration-spec.ts');
      expect(tiers.tiersIn(root)).toEqual(['unit', 'integration', 'e2e']);
    });

    it('has no target without tests, so run-many never starts Jest for it', () => {
      touch('src/index.ts');
      expect(tiers.testTargets('libs/x', tiers.tiersIn(root))).toEqual({});
    });
  });

  describe('targets', () => {
    const targets = tiers.testTargets('libs/x', ['unit', 'integration', 'e2e']);

    it('runs Jest with the project config and the tier', () => {
      expect(targets['test:integration']).toMatchObject({
        command:
          'node --experimental-vm-modules node_modules/jest/bin/jest.js --config libs/x/jest.config.js',
        options: { cwd: '{workspaceRoot}', env: { JEST_TIER: 'integration' } },
      });
    });

    it('caches unit tests only, without outputs', () => {
      expect(targets['test:unit']).toMatchObject({ cache: true, outputs: [] });
      expect(targets['test:integration']).toMatchObject({ cache: false });
      expect(targets['test:e2e']).toMatchObject({ cache: false });
    });

    it('runs an end-to-end task with no other task beside it, two files at a time', () => {
      expect(targets['test:e2e']).toMatchObject({ parallelism: false });
      expect(targets['test:e2e'].command).toMatch(/ --maxWorkers=2$/);
      expect(targets['test:unit'].command).not.toContain('--maxWorkers');
      expect(targets['test:unit']).toMatchObject({ parallelism: true });
      expect(targets['test:integration']).toMatchObject({ parallelism: true });
    });

    it('keeps a PostgreSQL run and a PGlite run apart in the database tiers', () => {
      expect(targets['test:integration'].inputs).toContainEqual({ env: 'TEST_DATABASE_URL' });
      expect(targets['test:e2e'].inputs).toContainEqual({ env: 'TEST_DATABASE_URL' });
    });

    it("declares the project's checked files, its code and its dependencies' code as inputs", () => {
      expect(targets['test:unit'].inputs).toEqual(
        expect.arrayContaining(['default', '^production', 'testChecks']),
      );
    });

    it('`test` runs every tier the project has', () => {
      expect(targets.test).toMatchObject({
        executor: 'nx:noop',
        dependsOn: ['test:unit', 'test:integration', 'test:e2e'],
      });
      expect(tiers.testTargets('libs/x', ['unit']).test).toMatchObject({
        dependsOn: ['test:unit'],
      });
    });
  });
});
