#!/usr/bin/env node
// `npm test` (and `npm run test:unit|test:integration|test:e2e`): runs the test targets of
// every project through Nx (tools/nx/test-tiers.js), then prints one closing line with the
// tests of all Jest runs added up, cached runs included (Nx replays their output).
//
//   node tools/nx/run-tests.js [target ...] [nx run-many options]
//   npm run test:unit -- --projects=shared-nest      (one project's unit tests)
//
// Nx runs two tasks at a time (--parallel=2, the CI machine's 2 cores; Jest itself runs one
// worker per task there): each test file has its own database, so two projects' database
// tests side by side do not meet. Override with e.g. `npm test -- --parallel=1`.
const { spawn } = require('node:child_process');
const { join } = require('node:path');

const ROOT = join(__dirname, '..', '..');

/** `Tests:       1 failed, 2 skipped, 40 passed, 43 total` → counts by word. */
function parseJestSummary(line) {
  // eslint-disable-next-line no-control-regex
  const text = line.replace(/\u001b\[[0-9;]*m/g, '');
  const match = /\bTests:\s+(.*\d+ total)\s*$/.exec(text);
  if (!match) return undefined;
  const counts = {};
  for (const part of match[1].split(',')) {
    const [, n, word] = /(\d+) (\w+)/.exec(part.trim()) ?? [];
    if (word) counts[word] = Number(n);
  }
  return counts;
}

/** Adds up parsed summaries into the closing line. */
function closingLine(summaries) {
  const sum = (word) => summaries.reduce((total, s) => total + (s[word] ?? 0), 0);
  const extra = ['skipped', 'todo']
    .filter((word) => sum(word))
    .map((word) => `, ${sum(word)} ${word}`)
    .join('');
  return (
    `Tests (all projects): ${sum('passed')} passed, ${sum('failed')} failed${extra}, ` +
    `${sum('total')} total in ${summaries.length} Jest runs`
  );
}

function main(argv) {
  const targets = argv.filter((arg) => !arg.startsWith('-'));
  const nxOptions = argv.filter((arg) => arg.startsWith('-'));
  const args = [
    require.resolve('nx/bin/nx.js', { paths: [ROOT] }),
    'run-many',
    '-t',
    ...(targets.length ? targets : ['test']),
    ...(nxOptions.some((option) => option.startsWith('--parallel')) ? [] : ['--parallel=2']),
    ...nxOptions,
  ];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: ['inherit', 'pipe', 'pipe'],
    env: { NX_TUI: 'false', ...process.env },
  });
  const summaries = [];
  const tap = (stream, out) => {
    let rest = '';
    stream.on('data', (chunk) => {
      out.write(chunk);
      const lines = (rest + chunk.toString('utf8')).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        const counts = parseJestSummary(line);
        if (counts) summaries.push(counts);
      }
    });
    stream.on('end', () => {
      const counts = parseJestSummary(rest);
      if (counts) summaries.push(counts);
    });
  };
  tap(child.stdout, process.stdout);
  tap(child.stderr, process.stderr);
  child.on('close', (code) => {
    const line = closingLine(summaries);
    const failed = summaries.some((s) => s.failed);
    process.stdout.write(`\n${line}\n`);
    process.exit(code === 0 && !failed ? 0 : code || 1);
  });
}

if (require.main === module) main(process.argv.slice(2));

module.exports = { parseJestSummary, closingLine };
