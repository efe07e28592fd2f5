const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

/**
 * The metric (or recorded series) names a PromQL expression reads: identifiers that are not
 * functions, keywords, label names (inside {...} or by/without/on/ignoring (...)) or durations.
 * Enough for the expressions of this repository's rules and dashboard, not a PromQL parser.
 */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const match of bare.matchAll(/(?<![\w.$:])([a-zA-Z_:][a-zA-Z0-9_:]*)(?![\w:])(?!\s*\()/g)) {
    const name = match[1];
    if (!KEYWORDS.has(name.toLowerCase())) names.add(name);
  }
  return [...names];
}

/** The metric families of an exposition text, by their `# TYPE name type` lines. */
export function families(text: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) found.set(name, type);
  return found;
}

/** Whether `name` is a series of one of `exported` (a histogram's _bucket, _sum and _count too). */
export function isExported(name: string, exported: Map<string, string>): boolean {
  if (exported.has(name)) return true;
  const histogram = /^(.*)_(bucket|sum|count)$/.exec(name);
  return !!histogram && ['histogram', 'summary'].includes(exported.get(histogram[1]) ?? '');
}
