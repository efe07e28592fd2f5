import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..', '..');
const TICK_SHAPE = join(__dirname, 'tick-shape.ts');

/**
 * Runs `body` in a fresh Node.js process with V8's natives syntax and `gc()`, from the sources
 * (the workspace's path aliases resolve): `nextTickObject()` (a promise of the next tick object)
 * and `fullCollections()` are in scope. Returns what it printed.
 */
function inFreshProcess(body: string): string {
  const script = `
    const { executionAsyncResource } = require('node:async_hooks');
    const { retainTickShape, retainedTickObject } = require(${JSON.stringify(TICK_SHAPE)});
    const nextTickObject = () => new Promise((resolve) => process.nextTick(() => resolve(executionAsyncResource())));
    const fullCollections = async () => {
      for (let i = 0; i < 3; i++) {
        gc();
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    (async () => { ${body} })().catch((error) => { console.error(error); process.exit(1); });
  `;
  const run = spawnSync(
    process.execPath,
    [
      '--expose-gc',
      '--allow-natives-syntax',
      '-r',
      '@swc-node/register',
      '-r',
      'tsconfig-paths/register',
      '-e',
      script,
    ],
    {
      cwd: ROOT,
      encoding: 'utf8',
      env: {
        ...process.env,
        SWC_NODE_PROJECT: 'tsconfig.base.json',
        TS_NODE_PROJECT: 'tsconfig.base.json',
      },
    },
  );
  if (run.status !== 0) throw new Error(`the process failed: ${run.stderr}`);
  return run.stdout.trim();
}

describe('retainTickShape', () => {
  it('keeps the first tick object, so later ticks still get its map after full collections', () => {
    const out = inFreshProcess(`
      retainTickShape();
      await new Promise((resolve) => setImmediate(resolve));
      const kept = retainedTickObject();
      await fullCollections();
      const later = await nextTickObject();
      console.log(JSON.stringify({
        kept: kept !== null && kept !== later,
        keys: kept && Object.getOwnPropertySymbols(kept).map(String),
        sameMap: kept !== null && %HaveSameMap(kept, later),
      }));
    `);
    expect(JSON.parse(out)).toEqual({
      kept: true,
      keys: expect.arrayContaining(['Symbol(async_id_symbol)']),
      sameMap: true,
    });
  });

  // What it works around, in the Node.js the project runs on: should a later Node.js keep tick
  // maps alive by itself, this fails, and retainTickShape can go.
  it('is needed: without a live tick object, a full collection makes later ticks build new maps', () => {
    const out = inFreshProcess(`
      const print = (object) => { %DebugPrint(object); };
      print(await nextTickObject());
      await fullCollections();
      print(await nextTickObject());
    `);
    const maps = [...out.matchAll(/^DebugPrint: .*\n - map: (0x[0-9a-f]+)/gm)].map((m) => m[1]);
    expect(maps).toHaveLength(2);
    expect(maps[0]).not.toBe(maps[1]);
  });

  it('runs in the synchronous part of a service process, before its app is built', () => {
    const out = inFreshProcess(`
      const { Module } = require('@nestjs/common');
      const { runService, tickShapeRequested } = require('@bank/shared/nest');
      class Empty {}
      Module({})(Empty);
      runService({
        serviceName: 'tick-shape-test',
        environment: class {},
        appModule: () => {
          // Called right after retainTickShape, in the same synchronous run.
          console.log(JSON.stringify({ requested: tickShapeRequested() }));
          process.exit(0);
        },
        configureApp: () => undefined,
        database: { serviceName: 'tick-shape-test', entities: [], migrations: [] },
        migrationsDir: '.',
      });
    `);
    expect(JSON.parse(out)).toEqual({ requested: true });
  });
});
