import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './context';
import {
  imageEnv,
  judgePlateau,
  memoryOfMetrics,
  parseMetrics,
  runtimeMemoryEnv,
  smapsRollupMiB,
  windowLabel,
  windows,
  type MemorySample,
} from './soak-judge';

const MiB = 1024 * 1024;

/** Samples every `stepS` seconds with the given RSS figures (MiB), the rest fixed. */
const samples = (rss: number[], stepS = 60): MemorySample[] =>
  rss.map((rssMiB, i) => ({
    atS: (i + 1) * stepS,
    rssMiB,
    heapTotalMiB: 90,
    heapUsedMiB: 60,
    newSpaceMiB: 16,
    oldSpaceMiB: 50,
    externalMiB: 4,
  }));

describe('judgePlateau', () => {
  it('passes RSS that levels off below 70 % of 512 MiB', () => {
    const judged = judgePlateau(samples([200, 240, 260, 270, 272, 271, 273, 274, 272, 275]));
    expect(judged.ceilingMiB).toBeCloseTo(358.4);
    expect(judged.firstHalfMaxMiB).toBe(272);
    expect(judged.lastHalfMaxMiB).toBe(275);
    expect(judged.maxMiB).toBe(275);
    expect(judged.plateau).toBe(true);
    expect(judged.belowCeiling).toBe(true);
    expect(judged.passed).toBe(true);
  });

  it('fails RSS that keeps growing, even below the ceiling', () => {
    // 264 -> 313 -> 363 MB at 10 s / 5 min / 15 min had no plateau: the same shape, lower.
    const judged = judgePlateau(samples([200, 215, 230, 245, 260, 275, 290, 305, 320, 335]));
    expect(judged.growth).toBeCloseTo(335 / 260 - 1);
    expect(judged.plateau).toBe(false);
    expect(judged.belowCeiling).toBe(true);
    expect(judged.passed).toBe(false);
    expect(judged.reasons.join(' ')).toMatch(/grew 28\.8 %/);
  });

  it('fails a plateau above the ceiling', () => {
    const judged = judgePlateau(samples([300, 360, 365, 366, 366, 365, 366, 367, 366, 366]));
    expect(judged.plateau).toBe(true);
    expect(judged.belowCeiling).toBe(false);
    expect(judged.passed).toBe(false);
    expect(judged.reasons.join(' ')).toMatch(/367\.0 MiB.*358\.4 MiB/);
  });

  it('takes the halves by time, not by the number of samples', () => {
    // A gap in sampling (a slow /metrics) must not move a late sample into the first half.
    const judged = judgePlateau([
      ...samples([250, 260], 60),
      { ...samples([300])[0], atS: 500 },
      { ...samples([301])[0], atS: 600 },
    ]);
    expect(judged.firstHalfMaxMiB).toBe(260);
    expect(judged.lastHalfMaxMiB).toBe(301);
  });

  it('allows the tolerance given, and the limit and share given', () => {
    const rss = [200, 250, 250, 250, 260, 260];
    expect(judgePlateau(samples(rss), { tolerance: 0.05 }).plateau).toBe(true);
    expect(judgePlateau(samples(rss), { tolerance: 0.02 }).plateau).toBe(false);
    expect(judgePlateau(samples(rss), { limitMiB: 256, share: 1 }).belowCeiling).toBe(false);
  });

  it('refuses to judge fewer than four samples', () => {
    expect(() => judgePlateau(samples([200, 210, 220]))).toThrow(/at least 4 samples/);
  });
});

describe('windows', () => {
  it('groups the samples into windows of the given length, each with its peak and last figures', () => {
    const rows = windows(samples([200, 210, 205, 230, 220, 221], 60), 180);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ fromS: 0, toS: 180, rssMaxMiB: 210, last: { rssMiB: 205 } });
    expect(rows[1]).toMatchObject({ fromS: 180, toS: 360, rssMaxMiB: 230, last: { rssMiB: 221 } });
  });

  it('names a row by its window end, and the final sample taken past the run end as (end)', () => {
    // A 60-minute run sampled every 15 s: its final sample comes a second after the end.
    const run = [
      ...samples(Array<number>(240).fill(200), 15),
      { ...samples([201])[0], atS: 3_601 },
    ];
    const labels = windows(run, 300).map((w) => windowLabel(w, 3_600.8));
    expect(labels.slice(-3)).toEqual(['55', '60', '60 (end)']);
    expect(labels).toHaveLength(13);
  });

  it('leaves out windows without samples', () => {
    const rows = windows([{ ...samples([200])[0], atS: 500 }], 180);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ fromS: 360, toS: 540 });
  });
});

const METRICS = `# HELP process_resident_memory_bytes Resident memory size in bytes.
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 283115520
# HELP nodejs_heap_size_total_bytes Process heap size from Node.js in bytes.
# TYPE nodejs_heap_size_total_bytes gauge
nodejs_heap_size_total_bytes 94371840
nodejs_heap_size_used_bytes 62914560
nodejs_external_memory_bytes 4194304
nodejs_heap_space_size_total_bytes{space="new"} 33554432
nodejs_heap_space_size_total_bytes{space="old"} 52428800
nodejs_heap_space_size_total_bytes{space="code"} 4194304
process_memory_limit_bytes +Inf
http_requests_total{method="GET",route="/api/v1/card-issue/:id",status="200"} 12 1764241234000
`;

describe('parseMetrics', () => {
  it('reads each series of the Prometheus text format by its name and labels', () => {
    const series = parseMetrics(METRICS);
    expect(series.get('nodejs_heap_size_total_bytes')).toBe(94371840);
    expect(series.get('nodejs_heap_space_size_total_bytes{space="new"}')).toBe(33554432);
    expect(series.get('process_memory_limit_bytes')).toBe(Infinity);
    expect(
      series.get('http_requests_total{method="GET",route="/api/v1/card-issue/:id",status="200"}'),
    ).toBe(12);
    expect([...series.keys()].some((k) => k.startsWith('#'))).toBe(false);
  });
});

describe('memoryOfMetrics', () => {
  it('takes the heap figures from /metrics in MiB, the RSS from /proc', () => {
    expect(memoryOfMetrics(METRICS, 300, 42)).toEqual({
      atS: 42,
      rssMiB: 300,
      heapTotalMiB: 90,
      heapUsedMiB: 60,
      newSpaceMiB: 32,
      oldSpaceMiB: 50,
      externalMiB: 4,
    });
  });

  it('says which figure /metrics lacks', () => {
    expect(() => memoryOfMetrics('nodejs_heap_size_used_bytes 1\n', 300, 1)).toThrow(
      /nodejs_heap_size_total_bytes/,
    );
  });

  it('counts in MiB', () => {
    expect(memoryOfMetrics(METRICS.replace('94371840', String(10 * MiB)), 1, 1).heapTotalMiB).toBe(
      10,
    );
  });
});

describe('smapsRollupMiB', () => {
  it('reads the resident, anonymous and file-backed figures of /proc/<pid>/smaps_rollup', () => {
    const text = [
      '00400000-7ffd2e5f2000 ---p 00000000 00:00 0                          [rollup]',
      'Rss:              289012 kB',
      'Pss:              285000 kB',
      'Pss_Anon:         250000 kB',
      'Pss_File:          35000 kB',
      'Anonymous:        252928 kB',
      'Swap:                  0 kB',
    ].join('\n');
    expect(smapsRollupMiB(text)).toEqual({ rssMiB: 289012 / 1024, anonymousMiB: 252928 / 1024 });
  });
});

describe('runtimeMemoryEnv', () => {
  const CONFIG = [
    '# Heap below the limit.',
    'NODE_ENV=production',
    'NODE_OPTIONS=--max-old-space-size=256 --max-semi-space-size=8',
    'MALLOC_ARENA_MAX=2',
    '',
  ].join('\n');

  it('takes NODE_OPTIONS and MALLOC_ARENA_MAX from a config.env, nothing else', () => {
    expect(runtimeMemoryEnv(CONFIG, {})).toEqual({
      NODE_OPTIONS: '--max-old-space-size=256 --max-semi-space-size=8',
      MALLOC_ARENA_MAX: '2',
    });
  });

  it('lets BENCH_SOAK_NODE_OPTIONS and BENCH_SOAK_MALLOC_ARENA_MAX override it, empty for unset', () => {
    expect(
      runtimeMemoryEnv(CONFIG, {
        BENCH_SOAK_NODE_OPTIONS: '--max-old-space-size=384',
        BENCH_SOAK_MALLOC_ARENA_MAX: '',
      }),
    ).toEqual({ NODE_OPTIONS: '--max-old-space-size=384' });
  });
});

describe('imageEnv', () => {
  it('reads the ENV instructions of a Dockerfile stage, continued lines and quotes included', () => {
    const dockerfile = [
      'FROM node AS build',
      'ENV CI=true NX_DAEMON=false',
      'FROM node AS runtime',
      'ENV NODE_ENV=production \\',
      '    PORT=3000 \\',
      '    NODE_OPTIONS="--max-old-space-size=256 --max-semi-space-size=16" \\',
      '    MALLOC_ARENA_MAX=2',
      'CMD ["node", "main.js"]',
    ].join('\n');
    expect(imageEnv(dockerfile)).toEqual({
      NODE_ENV: 'production',
      PORT: '3000',
      NODE_OPTIONS: '--max-old-space-size=256 --max-semi-space-size=16',
      MALLOC_ARENA_MAX: '2',
    });
  });

  it.each(['card-issue', 'client-registration'])(
    "finds in %s's image the runtime memory settings of its k8s config.env",
    (service) => {
      const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
      const shipped = runtimeMemoryEnv(read(`k8s/${service}/config.env`), {});
      expect(Object.keys(shipped)).toEqual(['NODE_OPTIONS', 'MALLOC_ARENA_MAX']);
      const image = imageEnv(read(`apps/${service}/Dockerfile`));
      expect(runtimeMemoryEnv('', { ...prefixed(image) })).toEqual(shipped);
    },
  );
});

/** BENCH_SOAK_<key> for each key: runtimeMemoryEnv's overrides, to pick the same keys. */
const prefixed = (env: Record<string, string>) =>
  Object.fromEntries(Object.entries(env).map(([k, v]) => [`BENCH_SOAK_${k}`, v]));
