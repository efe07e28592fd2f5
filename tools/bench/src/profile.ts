import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BenchContext, log } from './context';
import { startCardIssue } from './infra';
import { load } from './load';
import { Scenario } from './scenarios';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

interface ProfileSummary {
  table: string;
  topFunctions: string;
  /** The stage with the most CPU time, idle excluded. */
  dominant: string;
}

/** Stage of a frame, from where its code lives. Order matters: the first match wins. */
const STAGES: [string, RegExp][] = [
  [
    'HTTP client to the downstream user service (axios, follow-redirects)',
    /node_modules\/(axios|follow-redirects|@nestjs\/axios|form-data|proxy-from-env)\//,
  ],
  [
    'validation and transformation (class-validator, class-transformer)',
    /node_modules\/(class-validator|class-transformer|validator|libphonenumber-js)\//,
  ],
  [
    'database driver (pg, pg-protocol) and pool',
    /node_modules\/(pg|pg-protocol|pg-pool|pg-types|postgres-[a-z]+|pgpass|buffer-writer|packet-reader)\//,
  ],
  ['TypeORM', /node_modules\/typeorm\//],
  [
    'logging (pino, pino-http, nestjs-pino)',
    /node_modules\/(pino|pino-http|pino-std-serializers|nestjs-pino|sonic-boom|thread-stream|fast-redact)\//,
  ],
  [
    'Fastify (routing, hooks, parsing, serialization)',
    /node_modules\/(fastify|@fastify\/[^/]+|find-my-way|light-my-request|avvio|secure-json-parse|fast-json-stringify|fast-querystring|toad-cache)\//,
  ],
  [
    'NestJS core (router, pipes, guards, interceptors, DI)',
    /node_modules\/@nestjs\/(core|common|platform-fastify)\//,
  ],
  ['rxjs', /node_modules\/rxjs\//],
  ['luxon (dates)', /node_modules\/luxon\//],
  ['other dependencies', /node_modules\//],
  ['application code (bundle)', /dist\/apps\/|apps\/card-issue|libs\/shared/],
  [
    'Node.js networking and streams (node:net, node:http, TLS-free sockets)',
    /^node:(net|_http|http|stream|internal\/(http|streams|stream_base|net|js_stream))|node:internal\/(streams|http|net|dns)/,
  ],
  ['Node.js other internals', /^node:/],
];

function stageOf(node: ProfileNode): string {
  const { functionName, url } = node.callFrame;
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(idle)') return 'idle';
  if (functionName === '(program)') return 'V8 / native (program)';
  if (!url) return functionName ? `native: ${functionName}` : 'native';
  for (const [stage, pattern] of STAGES) if (pattern.test(url)) return stage;
  return 'other';
}

/** Self time per stage from a .cpuprofile written by `node --cpu-prof`. */
function analyzeProfile(file: string): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) =>
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)),
  );
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const GENERIC = /^(Node\.js|V8 \/ native|native)/;
  /** Node internals and native frames count for the library or app code that called them. */
  const attributed = (node: ProfileNode): string => {
    const own = stageOf(node);
    if (!GENERIC.test(own)) return own;
    for (let id = parent.get(node.id); id !== undefined; id = parent.get(id)) {
      const caller = byId.get(id);
      const stage = caller ? stageOf(caller) : 'other';
      if (!GENERIC.test(stage) && stage !== 'other') return stage;
    }
    return own.startsWith('native') ? 'V8 / native (program)' : own;
  };
  const stages = new Map<string, number>();
  const functions = new Map<string, number>();
  let total = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const stage = attributed(node);
    stages.set(stage, (stages.get(stage) ?? 0) + us);
    const where = node.callFrame.url
      .replace(/^.*node_modules\//, '')
      .replace(/^file:\/\/.*\/dist\//, 'dist/');
    const fn = `${node.callFrame.functionName || '(anonymous)'} ${where}`;
    if (stage !== 'idle') functions.set(fn, (functions.get(fn) ?? 0) + us);
    total += us;
  }
  const busy = total - (stages.get('idle') ?? 0);
  const sorted = [...stages.entries()].sort((a, b) => b[1] - a[1]);
  const rows = sorted.map(
    ([stage, us]) =>
      `| ${stage} | ${(us / 1000).toFixed(0)} | ${stage === 'idle' ? '-' : `${((100 * us) / busy).toFixed(1)} %`} |`,
  );
  const dominant = sorted.find(([stage]) => stage !== 'idle')?.[0] ?? 'unknown';
  const top = [...functions.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 12)
    .map(
      ([fn, us]) =>
        `| \`${fn.slice(0, 110)}\` | ${(us / 1000).toFixed(0)} | ${((100 * us) / busy).toFixed(1)} % |`,
    );
  return {
    table: [
      '| stage (self time; Node internals and native frames counted for their caller) | ms | share of busy CPU |',
      '|---|---|---|',
      ...rows,
    ].join('\n'),
    topFunctions: [
      '| function (self time) | ms | share of busy CPU |',
      '|---|---|---|',
      ...top,
    ].join('\n'),
    dominant,
  };
}

export interface ProfileRun {
  scenario: string;
  /** Null when the process wrote no profile. */
  profile: ProfileSummary | null;
  /** From SIGTERM right after the load until the process exited. */
  shutdownSeconds: number;
}

/** A card-issue process under `node --cpu-prof` during 8 s of `scenario` at 50 connections. */
export async function profileCardIssue(
  ctx: BenchContext,
  url: string,
  scenario: Scenario,
): Promise<ProfileRun> {
  log(`profiling ${scenario.name} with --cpu-prof`);
  const profDir = mkdtempSync(join(tmpdir(), 'bench-prof-'));
  const profiled = await startCardIssue(ctx, url, { DB_MIGRATIONS_RUN: 'false' }, [
    '--cpu-prof',
    `--cpu-prof-dir=${profDir}`,
  ]);
  await load(profiled, scenario, 50, 8);
  const stopping = Date.now();
  await profiled.stop('SIGTERM');
  const shutdownSeconds = (Date.now() - stopping) / 1000;
  log(`card-issue stopped ${shutdownSeconds.toFixed(1)} s after SIGTERM (right after the load)`);
  const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
  const profile = file ? analyzeProfile(join(profDir, file)) : null;
  if (profile) console.log(`\n${profile.table}\n\n${profile.topFunctions}\n`);
  return { scenario: scenario.name, profile, shutdownSeconds };
}
