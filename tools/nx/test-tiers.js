// Nx plugin: the test targets of every project with a jest.config.js, inferred from the test
// file naming convention, so a new test file is picked up without touching any project.json.
//
//   test:unit         *.spec.ts              cached (pure code: inputs declared, no outputs)
//   test:integration  *.integration-spec.ts  never cached (a real database behind them)
//   test:e2e          *.e2e-spec.ts          never cached, never beside another task (HTTP, processes)
//   test              all tiers of the project (nx:noop depending on them)
//
// A tier target exists only where the project has such files, and `test` only where it has
// any: `nx run-many -t test` never starts Jest for a project without tests. jest.preset.js
// reads JEST_TIER and the same suffixes, so Jest and Nx agree on what a tier is.
const { existsSync, readdirSync } = require('node:fs');
const { dirname, join } = require('node:path');

/** Test tiers and their file suffixes; the order is the order `test` lists them in. */
// `alone`: Nx runs an e2e task with no other task beside it (target `parallelism: false`), and
// that task's Jest runs two files at a time (`workers`), one per core of the CI machine: each
// end-to-end file is one Node.js thread (the app, the test and PGlite share it), so a second
// file uses the second core, where one Jest worker left it to the first. Unit and integration
// tasks share the machine through Nx's --parallel=2 with Jest's default (one worker on 2 cores).
const TIERS = {
  unit: { suffix: '.spec.ts', cache: true, alone: false },
  integration: { suffix: '.integration-spec.ts', cache: false, alone: false },
  e2e: { suffix: '.e2e-spec.ts', cache: false, alone: true, workers: 2 },
};

/** Folders of a project that hold tests (jest.preset.js testMatch). */
const TEST_FOLDERS = ['src', 'test'];

/** The tier a file belongs to, or undefined (`x.e2e-spec.ts` does not end in `.spec.ts`). */
function tierOf(fileName) {
  return Object.keys(TIERS).find((tier) => fileName.endsWith(TIERS[tier].suffix));
}

/** Jest's testMatch (relative to a project's rootDir) for one tier, or for every tier. */
function testMatch(tier) {
  if (tier && !TIERS[tier]) throw new Error(`JEST_TIER=${tier}: expected ${Object.keys(TIERS)}`);
  const suffixes = tier ? [TIERS[tier].suffix] : Object.values(TIERS).map((t) => t.suffix);
  return TEST_FOLDERS.flatMap((folder) => suffixes.map((s) => `<rootDir>/${folder}/**/*${s}`));
}

/** The tiers that have at least one test file under the project root. */
function tiersIn(projectRoot) {
  const found = new Set();
  for (const folder of TEST_FOLDERS) {
    const dir = join(projectRoot, folder);
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      if ((entry.parentPath ?? entry.path).includes('node_modules')) continue;
      const tier = tierOf(entry.name);
      if (tier) found.add(tier);
    }
  }
  return Object.keys(TIERS).filter((tier) => found.has(tier));
}

/** The targets of one project whose root (relative to the workspace) is `root`. */
function testTargets(root, tiers) {
  if (!tiers.length) return {};
  const targets = {};
  for (const tier of tiers) {
    const { cache, alone, workers } = TIERS[tier];
    targets[`test:${tier}`] = {
      command:
        `node --experimental-vm-modules node_modules/jest/bin/jest.js --config ${root}/jest.config.js` +
        (workers ? ` --maxWorkers=${workers}` : ''),
      options: { cwd: '{workspaceRoot}', env: { JEST_TIER: tier } },
      cache,
      parallelism: !alone,
      // `testChecks` names the workspace files a project's tests check besides code (k8s/,
      // openapi/, ...): a project sets it in its project.json, and `nx affected` follows it.
      inputs: [
        'default',
        '^production',
        'testChecks',
        '{workspaceRoot}/jest.preset.js',
        '{workspaceRoot}/jest.setup.js',
        '{workspaceRoot}/tools/nx/test-tiers.js',
        // The database tiers run against TEST_DATABASE_URL or PGlite: never one for the other.
        ...(cache ? [] : [{ env: 'TEST_DATABASE_URL' }]),
        { externalDependencies: ['jest', '@swc/jest'] },
      ],
      outputs: [],
      metadata: { description: `Jest: ${TIERS[tier].suffix} files of the project` },
    };
  }
  targets.test = {
    executor: 'nx:noop',
    dependsOn: tiers.map((tier) => `test:${tier}`),
    cache: false,
    metadata: { description: 'Every test tier of the project' },
  };
  return targets;
}

const createNodes = [
  '**/jest.config.js',
  (configFiles, _options, context) =>
    configFiles
      .filter((file) => dirname(file) !== '.') // the root jest.config.js runs every project
      .map((file) => {
        const root = dirname(file);
        const targets = testTargets(root, tiersIn(join(context.workspaceRoot, root)));
        return [file, { projects: { [root]: { targets } } }];
      }),
];

module.exports = {
  name: 'test-tiers',
  createNodes,
  TIERS,
  TEST_FOLDERS,
  testMatch,
  tierOf,
  tiersIn,
  testTargets,
};
