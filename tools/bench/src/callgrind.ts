/** What the bench reads from valgrind's callgrind (instructions.ts runs it) and makes of it. */

/**
 * Instructions per request of one configuration, counted in several processes: the request's
 * own code (the mutator) and the garbage collections it triggered on the main thread.
 */
export interface InstructionCounts {
  /** Mutator instructions per request of each process (its windows' median). */
  mutator: number[];
  /** Main-thread garbage-collection instructions per request of each process (all its windows). */
  gc: number[];
}

/** The instruction total of a callgrind dump, from its `summary:` or `totals:` line. */
export function dumpTotal(dump: string): number {
  const match = /^(?:summary|totals): (\d+)/m.exec(dump);
  if (!match) throw new Error('no summary or totals line in the callgrind dump');
  return Number(match[1]);
}

/**
 * Instructions spent in V8's garbage collections, inclusive, from the output of
 * `callgrind_annotate --inclusive=yes` (0 if no collection ran).
 */
export function gcInstructions(annotated: string): number {
  const line = annotated
    .split('\n')
    .find((l) => /\?\?\?:v8::internal::Heap::CollectGarbage\(/.test(l));
  const count = line && /^\s*([\d,]+)/.exec(line);
  return count ? Number(count[1].replace(/,/g, '')) : 0;
}

/** Mean instructions per request (mutator + gc) over the processes. */
export function instructionsPerRequest(counts: InstructionCounts): number {
  const mean = (values: number[]) => values.reduce((s, v) => s + v, 0) / values.length;
  return mean(counts.mutator) + mean(counts.gc);
}

/** A configuration's instructions against the reference's mean instructions per request. */
export interface InstructionCost {
  perRequest: number;
  /** 1 - (the reference's instructions per request) / (this configuration's). */
  cost: number;
  /** The lowest and highest cost of single processes (each against the reference's mean). */
  costRange: [number, number];
}

export function instructionCost(counts: InstructionCounts, reference: number): InstructionCost {
  const perRequest = instructionsPerRequest(counts);
  const single = counts.mutator.map((m, p) => 1 - reference / (m + counts.gc[p]));
  return {
    perRequest,
    cost: 1 - reference / perRequest,
    costRange: [Math.min(...single), Math.max(...single)],
  };
}
