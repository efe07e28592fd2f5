/** Number formats and the Markdown table of the bench's printed and written results. */

export const f0 = (n: number): string => n.toFixed(0);
export const f1 = (n: number): string => n.toFixed(1);
export const f2 = (n: number): string => n.toFixed(2);
export const f3 = (n: number): string => n.toFixed(3);

/** A share as a signed percentage with one decimal: 0.052 -> "5.2 %", -0.01 -> "-1.0 %". */
export const pct = (x: number): string => `${x >= 0 ? '' : '-'}${f1(Math.abs(100 * x))} %`;

/** A change as a percentage with its sign: 0.031 -> "+3.1 %", -0.004 -> "-0.4 %". */
export const signedPct = (x: number): string => `${x >= 0 ? '+' : ''}${pct(x)}`;

export function table(header: string[], rows: string[][]): string {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}
