/**
 * The memory soak's figures and its judgement (soak.ts): samples of a process's RSS and V8 heap
 * over time, grouped into windows, and whether the RSS levelled off below its share of the
 * container's memory limit.
 */

const MiB = 1024 * 1024;

/** One sample of the service process: RSS from /proc, the rest from its /metrics. */
export interface MemorySample {
  /** Seconds since the load began. */
  atS: number;
  /** VmRSS of /proc/<pid>/status. */
  rssMiB: number;
  /** V8 heap committed (nodejs_heap_size_total_bytes). */
  heapTotalMiB: number;
  /** V8 heap in use (nodejs_heap_size_used_bytes): live objects and garbage not yet collected. */
  heapUsedMiB: number;
  /** Committed size of the young generation (nodejs_heap_space_size_total_bytes{space="new"}). */
  newSpaceMiB: number;
  /** Committed size of the old generation (nodejs_heap_space_size_total_bytes{space="old"}). */
  oldSpaceMiB: number;
  /** Memory of C++ objects bound to JS objects, Buffers included (nodejs_external_memory_bytes). */
  externalMiB: number;
}

/** Every series of a Prometheus text exposition, keyed by name and labels as written. */
export function parseMetrics(text: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    // name{labels} value [timestamp]; label values may hold spaces, so split after the braces.
    const close = line.lastIndexOf('}');
    const head = close >= 0 ? line.slice(0, close + 1) : line.slice(0, line.indexOf(' '));
    const value = line.slice(head.length).trim().split(/\s+/)[0];
    series.set(head, value === '+Inf' ? Infinity : value === '-Inf' ? -Infinity : Number(value));
  }
  return series;
}

/** A sample from the text of /metrics, with the RSS read from /proc, `atS` seconds into the run. */
export function memoryOfMetrics(text: string, rssMiB: number, atS: number): MemorySample {
  const series = parseMetrics(text);
  const mib = (name: string): number => {
    const value = series.get(name);
    if (value === undefined) throw new Error(`/metrics has no ${name}`);
    return value / MiB;
  };
  return {
    atS,
    rssMiB,
    heapTotalMiB: mib('nodejs_heap_size_total_bytes'),
    heapUsedMiB: mib('nodejs_heap_size_used_bytes'),
    newSpaceMiB: mib('nodejs_heap_space_size_total_bytes{space="new"}'),
    oldSpaceMiB: mib('nodejs_heap_space_size_total_bytes{space="old"}'),
    externalMiB: mib('nodejs_external_memory_bytes'),
  };
}

/** Resident and anonymous memory of /proc/<pid>/smaps_rollup, MiB. */
export function smapsRollupMiB(text: string): { rssMiB: number; anonymousMiB: number } {
  const kib = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);
  return { rssMiB: kib('Rss') / 1024, anonymousMiB: kib('Anonymous') / 1024 };
}

/** The settings of the process's memory the soak runs the service with. */
export const RUNTIME_MEMORY_KEYS = ['NODE_OPTIONS', 'MALLOC_ARENA_MAX'] as const;

/**
 * NODE_OPTIONS and MALLOC_ARENA_MAX of a config.env (k8s/<service>/config.env), each
 * overridden by BENCH_SOAK_<key> of `env` where that is set (an empty one unsets it): the soak
 * runs what is shipped unless told otherwise.
 */
export function runtimeMemoryEnv(
  configEnv: string,
  env: NodeJS.ProcessEnv,
): Record<string, string> {
  const shipped = new Map<string, string>();
  for (const line of configEnv.split('\n')) {
    const match = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (match) shipped.set(match[1], match[2]);
  }
  const chosen: Record<string, string> = {};
  for (const key of RUNTIME_MEMORY_KEYS) {
    const value = env[`BENCH_SOAK_${key}`] ?? shipped.get(key);
    if (value) chosen[key] = value;
  }
  return chosen;
}

/** The samples of one stretch of the run. */
export interface SampleWindow {
  fromS: number;
  toS: number;
  /** The highest RSS in the window. */
  rssMaxMiB: number;
  /** The window's last sample. */
  last: MemorySample;
}

/** `samples` in consecutive windows of `lengthS` seconds from the start; empty ones left out. */
export function windows(samples: MemorySample[], lengthS: number): SampleWindow[] {
  const byIndex = new Map<number, MemorySample[]>();
  for (const sample of samples) {
    const index = Math.max(0, Math.ceil(sample.atS / lengthS) - 1);
    byIndex.set(index, [...(byIndex.get(index) ?? []), sample]);
  }
  return [...byIndex.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, inWindow]) => ({
      fromS: index * lengthS,
      toS: (index + 1) * lengthS,
      rssMaxMiB: Math.max(...inWindow.map((s) => s.rssMiB)),
      last: inWindow[inWindow.length - 1],
    }));
}

/**
 * The minute a table row names: the end of its window, or, for the window the last sample fell
 * into past the run's end (the final sample comes a moment after it), that sample's minute with
 * "(end)".
 */
export function windowLabel(window: SampleWindow, runSeconds: number): string {
  return window.toS > runSeconds
    ? `${(window.last.atS / 60).toFixed(0)} (end)`
    : String(Number((window.toS / 60).toFixed(1)));
}

export interface PlateauOptions {
  /** The container's memory limit, MiB (the Deployments' 512Mi). */
  limitMiB: number;
  /** The share of the limit the RSS must stay below. */
  share: number;
  /** How much the last half's peak may exceed the first half's and still count as level. */
  tolerance: number;
}

export const PLATEAU_DEFAULTS: PlateauOptions = { limitMiB: 512, share: 0.7, tolerance: 0.05 };

export interface PlateauJudgement {
  /** share x limit. */
  ceilingMiB: number;
  /** Peak RSS of the samples in the run's first half (by time), and of its last half. */
  firstHalfMaxMiB: number;
  lastHalfMaxMiB: number;
  /** lastHalfMax / firstHalfMax - 1. */
  growth: number;
  maxMiB: number;
  /** growth within the tolerance: the RSS levelled off. */
  plateau: boolean;
  belowCeiling: boolean;
  passed: boolean;
  /** Why it failed, in words (empty when it passed). */
  reasons: string[];
}

/**
 * Whether the RSS plateaued below `share` of the limit: the peak of the run's last half is at
 * most `tolerance` above the peak of its first half (a process whose memory keeps growing sets
 * a new peak every stretch), and no sample reaches the ceiling.
 */
export function judgePlateau(
  samples: MemorySample[],
  options: Partial<PlateauOptions> = {},
): PlateauJudgement {
  const { limitMiB, share, tolerance } = { ...PLATEAU_DEFAULTS, ...options };
  if (samples.length < 4)
    throw new Error(`a plateau needs at least 4 samples, got ${samples.length}`);
  const endS = Math.max(...samples.map((s) => s.atS));
  const first = samples.filter((s) => s.atS <= endS / 2);
  const last = samples.filter((s) => s.atS > endS / 2);
  const peak = (of: MemorySample[]) => Math.max(...of.map((s) => s.rssMiB));
  const firstHalfMaxMiB = peak(first.length ? first : samples.slice(0, 1));
  const lastHalfMaxMiB = peak(last.length ? last : samples.slice(-1));
  const maxMiB = peak(samples);
  const ceilingMiB = share * limitMiB;
  const growth = lastHalfMaxMiB / firstHalfMaxMiB - 1;
  const plateau = growth <= tolerance;
  const belowCeiling = maxMiB < ceilingMiB;
  const reasons: string[] = [];
  if (!plateau)
    reasons.push(
      `the RSS peak grew ${(100 * growth).toFixed(1)} % from the first half (${firstHalfMaxMiB.toFixed(1)} MiB) ` +
        `to the last (${lastHalfMaxMiB.toFixed(1)} MiB), more than ${(100 * tolerance).toFixed(0)} %`,
    );
  if (!belowCeiling)
    reasons.push(
      `the RSS reached ${maxMiB.toFixed(1)} MiB, not below ${(100 * share).toFixed(0)} % of ${limitMiB} MiB (${ceilingMiB.toFixed(1)} MiB)`,
    );
  return {
    ceilingMiB,
    firstHalfMaxMiB,
    lastHalfMaxMiB,
    growth,
    maxMiB,
    plateau,
    belowCeiling,
    passed: plateau && belowCeiling,
    reasons,
  };
}

/**
 * The variables the ENV instructions of a Dockerfile's last stage (the image that runs) set,
 * `KEY=value` pairs with continued lines and double quotes.
 */
export function imageEnv(dockerfile: string): Record<string, string> {
  const instructions = dockerfile.replace(/\\\n/g, ' ').split('\n');
  const lastFrom = instructions.findLastIndex((line) => /^FROM\s/i.test(line));
  const env: Record<string, string> = {};
  for (const line of instructions.slice(lastFrom + 1)) {
    const match = /^ENV\s+(.*)$/i.exec(line.trim());
    if (!match) continue;
    for (const pair of match[1].matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("([^"]*)"|\S*)/g))
      env[pair[1]] = pair[3] ?? pair[2];
  }
  return env;
}
