// eslint-disable-next-line @typescript-eslint/no-require-imports
const { parseJestSummary, closingLine } = require('../run-tests.js') as {
  parseJestSummary(line: string): Record<string, number> | undefined;
  closingLine(summaries: Record<string, number>[]): string;
};

describe('npm test closing line (tools/nx/run-tests.js)', () => {
  it("reads Jest's summary line, colours and Nx's project prefix included", () => {
    expect(
      parseJestSummary(
        'card-issue:test:e2e: \u001b[1mTests:       \u001b[22m\u001b[1m\u001b[31m1 failed\u001b[39m\u001b[22m, \u001b[1m\u001b[33m2 skipped\u001b[39m\u001b[22m, \u001b[1m\u001b[32m40 passed\u001b[39m\u001b[22m, 43 total',
      ),
    ).toEqual({ failed: 1, skipped: 2, passed: 40, total: 43 });
    expect(parseJestSummary('Test Suites: 3 passed, 3 total')).toBeUndefined();
    expect(parseJestSummary('Snapshots:   0 total')).toBeUndefined();
  });

  it('adds up every Jest run', () => {
    expect(
      closingLine([
        { passed: 10, total: 10 },
        { failed: 1, skipped: 2, passed: 40, total: 43 },
      ]),
    ).toBe('Tests (all projects): 50 passed, 1 failed, 2 skipped, 53 total in 2 Jest runs');
    expect(closingLine([])).toBe(
      'Tests (all projects): 0 passed, 0 failed, 0 total in 0 Jest runs',
    );
  });
});
