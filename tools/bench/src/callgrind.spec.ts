import { dumpTotal, gcInstructions, instructionCost, instructionsPerRequest } from './callgrind';

// The head and tail of a dump written by callgrind_control --dump (valgrind 3.19).
const DUMP = `# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 4242
cmd:  /usr/bin/node dist/apps/card-issue/main.js
part: 2

desc: Timerange: Basic block 104857600 - 108003328
desc: Trigger: --dump

positions: line
events: Ir
summary: 183456789

ob=(1) /usr/bin/node
fl=(1) ???
fn=(1) Builtins_JSEntry
0 1234

totals: 183456789
`;

// callgrind_annotate --inclusive=yes of such a dump.
const ANNOTATED = `--------------------------------------------------------------------------------
Ir                      file:function
--------------------------------------------------------------------------------
183,456,789 (100.0%)  ???:Builtins_JSEntry [/usr/bin/node]
 12,345,678 ( 6.73%)  ???:v8::internal::Heap::CollectGarbage(v8::internal::AllocationSpace, v8::internal::GarbageCollectionReason, v8::GCCallbackFlags) [/usr/bin/node]
  9,876,543 ( 5.38%)  ???:v8::internal::Heap::PerformGarbageCollection(v8::internal::GarbageCollector, v8::internal::GarbageCollectionReason, char const*) [/usr/bin/node]
`;

describe('dumpTotal', () => {
  it('reads the instruction total of a dump', () => {
    expect(dumpTotal(DUMP)).toBe(183456789);
  });

  it('reads a totals line where there is no summary', () => {
    expect(dumpTotal('events: Ir\nfn=(1) main\n0 10\ntotals: 77\n')).toBe(77);
  });

  it('refuses a dump without a total', () => {
    expect(() => dumpTotal('# callgrind format\nevents: Ir\n')).toThrow(/no summary or totals/);
  });
});

describe('gcInstructions', () => {
  it("reads the inclusive count of V8's Heap::CollectGarbage", () => {
    expect(gcInstructions(ANNOTATED)).toBe(12345678);
  });

  it('is 0 when no garbage collection ran', () => {
    expect(gcInstructions(ANNOTATED.split('\n').slice(0, 4).join('\n'))).toBe(0);
  });
});

describe('instruction costs', () => {
  // Two processes each: the reference 95 + 5 and 105 + 5 per request, mean 105.
  const reference = { mutator: [95, 105], gc: [5, 5] };
  // 120 + 10 and 140 + 10: mean 140.
  const traced = { mutator: [120, 140], gc: [10, 10] };

  it('are the mean of the processes, mutator plus garbage collection', () => {
    expect(instructionsPerRequest(reference)).toBe(105);
    expect(instructionsPerRequest(traced)).toBe(140);
  });

  it('cost 1 - reference / configuration, and each process against the reference mean', () => {
    const cost = instructionCost(traced, instructionsPerRequest(reference));
    expect(cost.perRequest).toBe(140);
    expect(cost.cost).toBeCloseTo(0.25, 12);
    expect(cost.costRange[0]).toBeCloseTo(1 - 105 / 130, 12);
    expect(cost.costRange[1]).toBeCloseTo(1 - 105 / 150, 12);
  });
});
