import { readText, repoPath } from './lib/repo';

const read = (file: string) => readText(repoPath(file)).split('\n');

/**
 * docs/capacity.md cites its figures as `benchmarks.md:<line>`; a benchmark run that adds lines
 * above a cited row moves it, and the citation then points at another row (it happened).
 */
describe('docs/capacity.md citations of docs/benchmarks.md', () => {
  const plan = read('docs/capacity.md');
  const benchmarks = read('docs/benchmarks.md');
  const isSeparator = (line: string | undefined) => /^\|\s*-{3,}/.test(line ?? '');
  // A data row of a table: neither its header (the line above a separator) nor a separator.
  const isDataRow = (n: number) =>
    (benchmarks[n - 1] ?? '').startsWith('|') &&
    !isSeparator(benchmarks[n - 1]) &&
    !isSeparator(benchmarks[n]);
  // Single-line citations, except those pinned to the commit that held them ("as of <sha>").
  const citations = plan.flatMap((line) =>
    [...line.matchAll(/benchmarks\.md:(\d+)(?!\d|-\d| as of)/g)].map((m) => ({
      line,
      cited: Number(m[1]),
    })),
  );

  it('finds the citations', () => {
    expect(citations.length).toBeGreaterThanOrEqual(10);
  });

  it('cites data rows of a table', () => {
    const wrong = citations.filter(({ cited }) => !isDataRow(cited));
    expect(wrong.map(({ cited }) => `benchmarks.md:${cited}: ${benchmarks[cited - 1]}`)).toEqual(
      [],
    );
  });

  it('finds the figure of each row of the per-replica table on the line it cites', () => {
    // | path | req/s of one process | source | ...: the req/s (or moves/s, PATCHes) first figure.
    const rows = citations.filter(({ line }) => line.startsWith('|'));
    expect(rows.length).toBeGreaterThanOrEqual(9);
    const wrong = rows.filter(({ line, cited }) => {
      const figure = line
        .split('|')[2]
        .match(/[\d,]+/)?.[0]
        .replace(/,/g, '');
      return !figure || !benchmarks[cited - 1].includes(figure);
    });
    expect(wrong.map(({ line, cited }) => `${line.split('|')[1].trim()} -> ${cited}`)).toEqual([]);
  });
});
