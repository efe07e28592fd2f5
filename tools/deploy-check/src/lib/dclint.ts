import { spawnSync } from 'node:child_process';
import path from 'node:path';

/** One problem dclint reports (its JSON formatter's message). */
export interface DclintMessage {
  rule: string;
  type: 'error' | 'warning';
  message: string;
  line: number;
}

/**
 * Runs the dclint CLI (its default rules: no configuration file in the repository) on a
 * compose file and returns what it reports. Throws when dclint itself fails to run.
 */
export function dclint(file: string, cwd: string): DclintMessage[] {
  // dclint's "exports" hide its bin from require.resolve; its package.json is open.
  const bin = path.join(path.dirname(require.resolve('dclint/package.json')), 'bin', 'dclint.cjs');
  const run = spawnSync(process.execPath, [bin, '--formatter', 'json', '--color', 'false', file], {
    cwd,
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (run.error) throw run.error;
  let results: { filePath: string; messages: DclintMessage[] }[];
  try {
    results = JSON.parse(run.stdout) as typeof results;
  } catch {
    throw new Error(`dclint did not report JSON (exit ${run.status}): ${run.stdout}${run.stderr}`);
  }
  return results.flatMap((r) =>
    r.messages.map(({ rule, type, message, line }) => ({ rule, type, message, line })),
  );
}
