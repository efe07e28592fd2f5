import { readFileSync } from 'node:fs';

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

export interface ProfileSummary {
  table: string;
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
export function analyzeProfile(file: string): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) =>
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)),
  );
  const stages = new Map<string, number>();
  let total = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const stage = stageOf(node).startsWith('native: ') ? 'V8 / native (program)' : stageOf(node);
    stages.set(stage, (stages.get(stage) ?? 0) + us);
    total += us;
  }
  const busy = total - (stages.get('idle') ?? 0);
  const sorted = [...stages.entries()].sort((a, b) => b[1] - a[1]);
  const rows = sorted.map(
    ([stage, us]) =>
      `| ${stage} | ${(us / 1000).toFixed(0)} | ${stage === 'idle' ? '-' : `${((100 * us) / busy).toFixed(1)} %`} |`,
  );
  const dominant = sorted.find(([stage]) => stage !== 'idle')?.[0] ?? 'unknown';
  return {
    table: ['| stage (self time) | ms | share of busy CPU |', '|---|---|---|', ...rows].join('\n'),
    dominant,
  };
}
