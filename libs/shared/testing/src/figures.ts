/**
 * The figures a fault scenario is judged by (docs/robustness.md): what was sent, answered and
 * stored, what was lost and left orphaned (both must be 0), and how long recovery took. A
 * suite records one row per scenario from what it measured and prints the table when it ends,
 * so the document's tables are pasted from a run, never written by hand.
 */
import type { TestDatabase } from './test-database';

/** The database column of a row: 'PostgreSQL' or 'PGlite'. */
export function figureDatabase(db: Pick<TestDatabase, 'kind'>): string {
  return db.kind === 'postgres' ? 'PostgreSQL' : 'PGlite';
}

export interface FigureRow {
  scenario: string;
  /** 'PostgreSQL' or 'PGlite' (TestDatabase.kind), or another setting the row depends on. */
  database: string;
  sent: string;
  answered: string;
  stored: string;
  /** Acknowledged writes not found afterwards. */
  lost: number;
  /** Rows or downstream records that nothing references. */
  orphans: number;
  recovered: string;
}

const COLUMNS: [keyof FigureRow, string][] = [
  ['scenario', 'Scenario'],
  ['database', 'Database'],
  ['sent', 'Sent'],
  ['answered', 'Answered'],
  ['stored', 'Stored'],
  ['lost', 'Lost'],
  ['orphans', 'Orphans'],
  ['recovered', 'Time to recover'],
];

export class FiguresTable {
  private readonly rows: FigureRow[] = [];

  constructor(private readonly title: string) {}

  add(row: FigureRow): void {
    this.rows.push(row);
  }

  /** The rows as a Markdown table under the title; empty when no scenario recorded one. */
  toMarkdown(): string {
    if (this.rows.length === 0) return '';
    const cell = (value: string | number) => String(value).replace(/\|/g, '\\|');
    return [
      `### ${this.title}`,
      '',
      `| ${COLUMNS.map(([, name]) => name).join(' | ')} |`,
      `| ${COLUMNS.map(() => '---').join(' | ')} |`,
      ...this.rows.map((row) => `| ${COLUMNS.map(([key]) => cell(row[key])).join(' | ')} |`),
    ].join('\n');
  }

  /** Prints the table (call from afterAll). */
  print(): void {
    const table = this.toMarkdown();
    if (table) console.log(`Robustness figures\n\n${table}\n`);
  }
}

/** Milliseconds as the tables show them: "850 ms", "4.03 s". */
export function formatMs(ms: number): string {
  return ms < 1_000 ? `${Math.round(ms)} ms` : `${(ms / 1_000).toFixed(2)} s`;
}
