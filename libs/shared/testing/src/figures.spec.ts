import { FiguresTable, formatMs } from './figures';

describe('FiguresTable', () => {
  const row = {
    scenario: 'cut | restore',
    database: 'PGlite',
    sent: '40 GET',
    answered: '40 x 503',
    stored: 'nothing new',
    lost: 0,
    orphans: 0,
    recovered: '14 ms',
  };

  it('prints one Markdown row per scenario, in the order recorded, pipes escaped', () => {
    const table = new FiguresTable('Outage');
    table.add(row);
    table.add({ ...row, scenario: 'second', lost: 1 });
    expect(table.toMarkdown().split('\n')).toEqual([
      '### Outage',
      '',
      '| Scenario | Database | Sent | Answered | Stored | Lost | Orphans | Time to recover |',
      '| --- | --- | --- | --- | --- | --- | --- | --- |',
      '| cut \\| restore | PGlite | 40 GET | 40 x 503 | nothing new | 0 | 0 | 14 ms |',
      '| second | PGlite | 40 GET | 40 x 503 | nothing new | 1 | 0 | 14 ms |',
    ]);
  });

  it('is empty without rows', () => {
    expect(new FiguresTable('None').toMarkdown()).toBe('');
  });

  it('formats durations', () => {
    expect([formatMs(14.4), formatMs(999), formatMs(4_030)]).toEqual(['14 ms', '999 ms', '4.03 s']);
  });
});
