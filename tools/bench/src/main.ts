/**
 * npm run bench: the services against a real PostgreSQL, each scenario next to its physical
 * limit (baseline-server.ts), a CPU profile of the card-issue POST and GET by id, the
 * scheduler's throughput with one and two replicas, and growth with 10^4..10^6 requests.
 * Prints tables and writes docs/benchmarks.md. Throw-away databases bench_* are dropped after.
 *
 * Settings (environment): BENCH_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres),
 * BENCH_DURATION_S (measured seconds per run, default 4), BENCH_WARMUP_S (1), BENCH_ROUNDS (2),
 * BENCH_SKIP_BUILD=true to reuse dist/, BENCH_GROWTH_MAX (1000000), BENCH_SCHEDULER_ROWS (100000),
 * BENCH_CONNECTIONS (10,50,100). BENCH_ONLY=<regex> runs only the load scenarios whose name matches
 * and prints their table: no profile, scheduler or growth, and docs/benchmarks.md is left as is;
 * a BENCH_ONLY that matches "outbox storm" runs the outbox storm too (BENCH_STORM_CLIENTS 20,
 * BENCH_STORM_REQUESTS 10, BENCH_STORM_S 20: outbox-storm.ts), and one that matches "observability
 * overhead" runs the card-issue POST and GET by id with metrics and tracing on and off
 * (overhead.ts) and rewrites only that section of docs/benchmarks.md; one that matches "webhook
 * cost" runs the card-issue POST with one webhook subscription and with none (webhook-cost.ts) and
 * rewrites only that section; one that matches "before after" compares the CPU per request of the
 * card-issue POST and GET by id from BENCH_BEFORE_DIST's bundle with the workspace's dist/
 * (before-after.ts: BENCH_ROUNDS, BENCH_WARMUP_S, BENCH_DURATION_S where set, else 9 rounds of
 * 1 s + 5 s) and prints the table only. BENCH_ONLY=soak runs the memory soak alone (soak.ts: one
 * card-issue process under a mixed load at a fixed rate for BENCH_SOAK_MINUTES, default 60) and
 * rewrites only its section (not with BENCH_SOAK_DOC=false); it exits 1 if the RSS did not level
 * off below 70 % of the 512Mi limit. BENCH_ONLY='hostile bodies' runs only the health probes while
 * bodies built to make validation work are refused (hostile-bodies.ts) and rewrites only their
 * section; the full run includes them.
 */
import { BEFORE_AFTER, beforeAfterBench, beforeAfterSettings, beforeBundle } from './before-after';
import { BenchContext, log } from './context';
import { createLoadFixtures, createPayloads } from './fixtures';
import { growthBench } from './growth';
import { HOSTILE_BODIES, hostileBodiesBench, hostileSeconds } from './hostile-bodies';
import {
  buildServices,
  runWithContext,
  createDatabase,
  describeMachine,
  startBaseline,
  startCardIssue,
  startRegistration,
} from './infra';
import { LoadTargets, runLoadScenarios, stopAll } from './load';
import { profileCardIssue } from './profile';
import {
  authCostLines,
  beforeAfterTable,
  benchmarksDoc,
  growthTable,
  hostileBodiesSection,
  hostileBodiesTable,
  hostileBodiesVerdict,
  OBSERVABILITY_OVERHEAD,
  OUTBOX_STORM,
  overheadSection,
  overheadTable,
  outboxStormTable,
  resultsTable,
  schedulerTable,
  writeBenchmarksDoc,
  writeHostileBodiesSection,
  writeOverheadSection,
  writeSoakSection,
  webhookCostSection,
  webhookCostTable,
  writeWebhookCostSection,
} from './report';
import { JWT_SCENARIO, loadScenarios, scenarioNamed } from './scenarios';
import { benchIssuer, verificationMicros } from './auth';
import { schedulerBench } from './scheduler';
import { outboxStormBench } from './outbox-storm';
import { overheadBench } from './overhead';
import { SOAK, soakBench, soakSection, soakTable, soakVerdict } from './soak';
import { WEBHOOK_COST, webhookCostBench } from './webhook-cost';

async function main(ctx: BenchContext): Promise<void> {
  const began = Date.now();
  // Checked before anything starts: a comparison that cannot run should not take minutes to say so.
  const before = ctx.settings.only?.test(BEFORE_AFTER)
    ? { bundle: beforeBundle(), settings: beforeAfterSettings() }
    : null;
  const machine = await describeMachine(ctx);
  log(`${machine.postgres}, ${machine.cores} cores, node ${machine.node}`);
  buildServices(ctx);
  if (ctx.settings.only?.test(SOAK)) {
    const soak = await soakBench(ctx);
    console.log(`\n${soakTable(soak)}\n\n${soakVerdict(soak)}\n`);
    if (process.env.BENCH_SOAK_DOC !== 'false') writeSoakSection(soakSection(soak));
    if (!soak.judgement.passed) process.exitCode = 1;
    return;
  }
  if (ctx.settings.only?.test(HOSTILE_BODIES)) {
    const hostile = await hostileBodiesBench(ctx);
    console.log(`\n${hostileBodiesTable(hostile)}\n\n${hostileBodiesVerdict(hostile)}\n`);
    writeHostileBodiesSection(hostileBodiesSection(hostile, hostileSeconds()));
    return;
  }

  const cardDb = await createDatabase(ctx, 'card');
  const regDb = await createDatabase(ctx, 'reg');
  const issuer = await benchIssuer();
  const targets: LoadTargets = {
    card: await startCardIssue(ctx, cardDb),
    cardJwt: await startCardIssue(ctx, cardDb, issuer.env),
    registration: await startRegistration(ctx, regDb),
    cardBaseline: await startBaseline(ctx, cardDb, 'sql'),
    cardBaselineUserGets: await startBaseline(ctx, cardDb, 'http'),
    registrationBaseline: await startBaseline(ctx, regDb),
  };
  const payloads = createPayloads();
  const fixtures = await createLoadFixtures(ctx, payloads, targets.card, targets.registration);
  const scenarios = loadScenarios(fixtures, payloads, issuer.authorization);

  const rows = await runLoadScenarios(ctx, targets, scenarios);
  await stopAll(targets);
  console.log(`\n${resultsTable(rows)}\n`);
  const overheadScenarios = [
    scenarioNamed(scenarios, 'POST /api/v1/card-issue (VIRTUAL, self)'),
    scenarioNamed(scenarios, 'GET /api/v1/card-issue/{id}'),
  ];

  const jwtRows = rows.filter((row) => row.scenario === JWT_SCENARIO);
  if (jwtRows.length) {
    const verify = {
      rs256: await verificationMicros('RS256'),
      es256: await verificationMicros('ES256'),
    };
    console.log(`${authCostLines(jwtRows, verify)}\n`);
  }
  if (ctx.settings.only) {
    if (ctx.settings.only.test(OUTBOX_STORM))
      console.log(`\n${outboxStormTable(await outboxStormBench(ctx))}\n`);
    if (ctx.settings.only.test(OBSERVABILITY_OVERHEAD)) {
      const overhead = await overheadBench(ctx, cardDb, overheadScenarios);
      console.log(`\n${overheadTable(overhead)}\n`);
      writeOverheadSection(overheadSection(overhead, ctx.settings));
    }
    if (ctx.settings.only.test(WEBHOOK_COST)) {
      const webhookCost = await webhookCostBench(ctx, cardDb, overheadScenarios[0]);
      console.log(`\n${webhookCostTable(webhookCost)}\n`);
      writeWebhookCostSection(webhookCostSection(webhookCost, ctx.settings));
    }
    if (before) {
      const { bundle, settings } = before;
      const compared = await beforeAfterBench(ctx, cardDb, overheadScenarios, bundle, settings);
      console.log(`\n${beforeAfterTable(compared)}\n`);
    }
    return;
  }
  const overhead = await overheadBench(ctx, cardDb, overheadScenarios);
  console.log(`\n${overheadTable(overhead)}\n`);
  const webhookCost = await webhookCostBench(ctx, cardDb, overheadScenarios[0]);
  console.log(`\n${webhookCostTable(webhookCost)}\n`);

  const profiles = [
    await profileCardIssue(
      ctx,
      cardDb,
      scenarioNamed(scenarios, 'POST /api/v1/card-issue (VIRTUAL, self)'),
    ),
    await profileCardIssue(ctx, cardDb, scenarioNamed(scenarios, 'GET /api/v1/card-issue/{id}')),
  ];
  const scheduler = await schedulerBench(ctx);
  console.log(`\n${schedulerTable(scheduler)}\n`);
  const storm = await outboxStormBench(ctx);
  console.log(`\n${outboxStormTable(storm)}\n`);
  const growth = await growthBench(ctx);
  console.log(`\n${growthTable(growth)}\n`);
  const hostile = await hostileBodiesBench(ctx);
  console.log(`\n${hostileBodiesTable(hostile)}\n\n${hostileBodiesVerdict(hostile)}\n`);

  const minutes = (Date.now() - began) / 60_000;
  writeBenchmarksDoc(
    benchmarksDoc({
      settings: ctx.settings,
      machine,
      minutes,
      rows,
      profiles,
      scheduler,
      storm,
      growth,
      overhead,
      webhookCost,
    }),
  );
  writeHostileBodiesSection(hostileBodiesSection(hostile, hostileSeconds()));
  log(`done in ${minutes.toFixed(1)} minutes`);
}

runWithContext(main);
