/**
 * How the bench turns runs into figures: medians and quantiles, the rounds of a target combined,
 * CPU per request pooled over runs, and configurations compared round by round.
 */
import type { RunResult } from './rows';

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The q-quantile of `values` (linear between the two nearest ranks). */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  return sorted[low] + (sorted[Math.min(low + 1, sorted.length - 1)] - sorted[low]) * (at - low);
}

/** The p-th percentile of ascending `sorted`: its value at index floor(p % of its length), 0 if empty. */
export function percentile(sorted: number[], p: number): number {
  return sorted.length
    ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
    : 0;
}

/** How the rounds of one target are combined into one result. */
export type Combine = 'mean' | 'median';

export function combine(results: RunResult[], how: Combine): RunResult {
  const pick = (f: (r: RunResult) => number) => {
    const values = results.map(f);
    return how === 'mean' ? values.reduce((s, v) => s + v, 0) / values.length : median(values);
  };
  return {
    rps: pick((r) => r.rps),
    p50: pick((r) => r.p50),
    p99: pick((r) => r.p99),
    errors: results.reduce((s, r) => s + r.errors, 0),
    rssMb: Math.max(...results.map((r) => r.rssMb)),
    cpuMsPerRequest: pick((r) => r.cpuMsPerRequest),
    requests: results.reduce((s, r) => s + r.requests, 0),
  };
}

/** CPU time per request over several runs: their total CPU over their total requests. */
export function pooledCpuMsPerRequest(runs: RunResult[]): number {
  const requests = runs.reduce((sum, run) => sum + run.requests, 0);
  return (
    runs.reduce((sum, run) => sum + run.cpuMsPerRequest * run.requests, 0) / Math.max(1, requests)
  );
}

/** One configuration of a run in rounds, against the first configuration (the reference). */
export interface Compared {
  /** Req/s and latencies the median of the rounds; CPU per request pooled over them. */
  result: RunResult;
  /** Its CPU per request over the reference's, both pooled over all rounds. */
  ratio: number;
  /**
   * The first and third quartiles of the rounds' own ratios, each round's CPU per request over
   * the reference's in the same round: how much the rounds agree.
   */
  ratioQuartiles: [number, number];
}

/**
 * `runs[configuration][round]`, the first configuration the reference, compared by CPU per
 * request. Pooled over all rounds (total CPU / total requests), since a major garbage collection
 * falls in one short run or the next and would move a single run's figure by 10-30 %; paired by
 * round for the quartiles, since the configurations of a round ran back to back, so what
 * disturbed the machine then disturbed them alike.
 */
export function compareRounds(runs: RunResult[][]): Compared[] {
  const results = runs.map((configurationRuns) => ({
    ...combine(configurationRuns, 'median'),
    cpuMsPerRequest: pooledCpuMsPerRequest(configurationRuns),
  }));
  return results.map((result, i) => {
    const ratios = runs[i].map((run, r) => run.cpuMsPerRequest / runs[0][r].cpuMsPerRequest);
    return {
      result,
      ratio: result.cpuMsPerRequest / results[0].cpuMsPerRequest,
      ratioQuartiles: [quantile(ratios, 0.25), quantile(ratios, 0.75)],
    };
  });
}
