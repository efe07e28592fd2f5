import { overheadSection, overheadTable, replaceSection, resultsTable } from './report';
import type { OverheadRow } from './overhead';
import type { RunResult } from './rows';

const run = (rps: number, p99: number): RunResult => ({
  rps,
  p50: 1,
  p99,
  errors: 0,
  rssMb: 90,
  cpuMsPerRequest: 1,
  requests: rps * 5,
});

describe('resultsTable', () => {
  it('puts each row with its ratios and the targets it is judged by', () => {
    const table = resultsTable([
      {
        scenario: 'GET /api/v1/card-issue/{id}',
        connections: 50,
        service: run(1700, 50),
        baseline: run(2000, 20),
      },
    ]).split('\n');
    expect(table).toHaveLength(3);
    expect(table[2]).toBe(
      '| GET /api/v1/card-issue/{id} | 50 | 1700 | 2000 | 0.85 | - | - | 1.0/50.0 / 1.0/20.0 | 0 / 0 | 90 / 90 | ratio ok (>= 0.85); P99 MISSED (>= 50 ms) |',
    );
  });
});

describe('the observability overhead report', () => {
  const configurations = [
    'metrics off, tracing off',
    'metrics on',
    'metrics on, tracing 0 %',
    'metrics on, tracing 10 %',
    'metrics on, tracing 100 %',
  ];
  const rows: OverheadRow[] = configurations.map((configuration, i) => ({
    scenario: 'GET /api/v1/card-issue/{id}',
    connections: 50,
    configuration,
    result: { ...run(2000, 90), cpuMsPerRequest: 0.3 + 0.01 * i },
    cost: i === 3 ? 0.152 : 0.02 * i,
    costSpread: [0, 0.04 * i],
    extraCpuMs: 0.01 * i,
    instructions: null,
  }));
  const result = { rows, exports: 12, verified: 'spans checked' };

  it('judges the configuration of the target only, by CPU where nothing was counted', () => {
    const verdicts = overheadTable(result)
      .split('\n')
      .slice(2)
      .map((line) => line.split(' | ').at(-1));
    expect(verdicts).toEqual([' |', ' |', ' |', 'CPU: MISSED (> 15 %) |', ' |']);
  });

  it('states the target in its text', () => {
    const settings = {
      adminUrl: '',
      durationS: 5,
      warmupS: 1,
      rounds: 9,
      connections: [50],
      growthMax: 0,
      schedulerRows: 0,
      only: null,
      skipBuild: true,
    };
    expect(overheadSection(result, settings)).toContain(
      'Target: metrics plus 10 %-sampled tracing cost at most 15 % of the CPU per request',
    );
  });
});

describe('replaceSection', () => {
  const MARK = '<!-- end of generated part: text below is kept by npm run bench -->';
  const doc = [
    '# Benchmarks',
    '',
    '## Observability overhead',
    '',
    'old overhead',
    '',
    '## Webhooks: cost per POST',
    '',
    'webhooks',
    '',
    MARK,
    '',
    '## Findings',
    '',
    '## Observability overhead: what was cut',
    '',
  ].join('\n');

  it('replaces the section up to the next heading and keeps the rest', () => {
    const updated = replaceSection(
      doc,
      '## Observability overhead',
      '## Observability overhead\n\nnew',
    );
    expect(updated).toBe(doc.replace('\n\nold overhead\n', '\n\nnew\n'));
  });

  it('replaces the last section of the generated part up to the mark', () => {
    const updated = replaceSection(
      doc,
      '## Webhooks: cost per POST',
      '## Webhooks: cost per POST\n\nnew',
    );
    expect(updated).toBe(doc.replace('webhooks\n\n', 'new\n\n'));
  });

  it('adds a missing section at the end of the generated part, never after the mark', () => {
    const updated = replaceSection(doc, '## Growth', '## Growth\n\ngrowth');
    expect(updated).toBe(
      doc.replace(`webhooks\n\n${MARK}`, `webhooks\n\n## Growth\n\ngrowth\n\n${MARK}`),
    );
  });

  it('gives a document without the mark one after the section', () => {
    expect(replaceSection('# Benchmarks\n', '## Growth', '## Growth\n\ngrowth')).toBe(
      `# Benchmarks\n\n## Growth\n\ngrowth\n\n${MARK}\n`,
    );
  });
});
