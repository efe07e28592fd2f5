import { executionAsyncResource } from 'node:async_hooks';

/** The first tick object of the process, kept for as long as the process runs (retainTickShape). */
let retainedTick: object | null = null;
let requested = false;

/**
 * Keeps one of `process.nextTick`'s tick objects alive for the life of the process, so that the
 * hidden classes (maps) V8 builds for tick objects stay alive too.
 *
 * Node 24 builds every tick as an object literal with computed symbol keys
 * (node:internal/process/task_queues). V8 records the map each of those keys was defined on, and
 * keeps that record only while something else keeps the map alive. When no tick object is alive
 * at a full garbage collection (between the first ticks of startup and the next ones, say), the
 * maps die. The next tick then builds new maps, the record sees a second map, and V8 gives up on
 * that literal for good. From then on the optimized `nextTick` defines each key through V8's
 * runtime: about 58 k instructions more per GET by id (13 % of it), 177 k per POST, in every
 * process that lost the draw (docs/benchmarks.md).
 *
 * Must run in the synchronous part of the process's main module: tick objects queued before it
 * are still alive then, so the one it keeps shares their maps.
 */
export function retainTickShape(): void {
  if (requested) return;
  requested = true;
  process.nextTick(() => {
    retainedTick = executionAsyncResource();
  });
}

/** Whether retainTickShape has run (its tick object is kept from the tick after). */
export function tickShapeRequested(): boolean {
  return requested;
}

/** The tick object retainTickShape kept (null before its tick ran). */
export function retainedTickObject(): object | null {
  return retainedTick;
}
