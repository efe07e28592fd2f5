#!/usr/bin/env node
// Checks the messages of the commits since a recorded base (docs/versioning.md, "Commit
// messages"): a Conventional Commits header `type(scope)!: subject` of at most 72 characters,
// a blank line before any body, and a body (the why) for feat and fix. Merge commits are
// skipped. `.ci/run` runs it on every CI run.
//
//   node tools/scripts/check-commits.mjs              commits of <base>..HEAD, the base read
//                                                    from .ci/commit-check-base
//   node tools/scripts/check-commits.mjs --base REV   commits of REV..HEAD
//   node tools/scripts/check-commits.mjs --stdin      one message, from standard input
//
// The base is a commit hash, not a tag: CI clones the main branch, where tags may be absent.
// Move it forward only (to the head of main) when old commits are to be left unjudged.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const TYPES = [
  'feat',
  'fix',
  'docs',
  'style',
  'refactor',
  'perf',
  'test',
  'build',
  'ci',
  'chore',
  'revert',
];
export const MAX_HEADER_LENGTH = 72;
/** Types whose commits must say why in a body. */
export const BODY_REQUIRED = ['feat', 'fix'];

const HEADER = /^([a-z]+)(?:\(([^()\s]*)\))?(!)?: (.*)$/;
const SCOPE = /^[a-z0-9][a-z0-9._/-]*$/;
/** Git trailers (Signed-off-by: ..., Co-authored-by: ...) are not a body. */
const TRAILER = /^[A-Za-z][A-Za-z0-9-]*: \S/;

/** The problems of one commit message (empty: it passes). */
export function checkMessage(message) {
  const lines = message.replace(/\r\n/g, '\n').split('\n');
  while (lines.length && lines[lines.length - 1].trim() === '') lines.pop();
  const header = lines[0] ?? '';
  const problems = [];
  const match = HEADER.exec(header);
  if (!match) {
    problems.push(
      `the first line must be "type(scope): subject" or "type: subject" (Conventional Commits), with type one of ${TYPES.join(', ')}`,
    );
  } else {
    const [, type, scope, , subject] = match;
    if (!TYPES.includes(type))
      problems.push(`unknown type "${type}": use one of ${TYPES.join(', ')}`);
    if (scope !== undefined && !SCOPE.test(scope))
      problems.push(`the scope "${scope}" must be lowercase letters, digits, . _ / -`);
    if (subject.trim() === '' || subject !== subject.trim())
      problems.push('the subject must follow ": " directly and not be empty');
    if (BODY_REQUIRED.includes(type)) {
      const body = lines.slice(2).filter((line) => line.trim() !== '' && !TRAILER.test(line));
      if (body.length === 0)
        problems.push(`a ${type} commit needs a body that says why (after a blank line)`);
    }
  }
  if ([...header].length > MAX_HEADER_LENGTH)
    problems.push(
      `the first line is ${[...header].length} characters; at most ${MAX_HEADER_LENGTH}`,
    );
  if (lines.length > 1 && lines[1].trim() !== '')
    problems.push('the second line must be blank (it separates the subject from the body)');
  return problems;
}

function git(args, cwd) {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The non-merge commits of base..HEAD, oldest first, with their problems. */
export function checkRange(base, cwd = process.cwd()) {
  try {
    git(['rev-parse', '--verify', '--quiet', `${base}^{commit}`], cwd);
  } catch {
    throw new Error(
      `the base ${base} is not a commit of this clone (a shallow clone? fetch its history)`,
    );
  }
  const hashes = git(['rev-list', '--no-merges', '--reverse', `${base}..HEAD`], cwd)
    .split('\n')
    .filter(Boolean);
  return hashes.map((hash) => {
    const message = git(['log', '-1', '--format=%B', hash], cwd);
    return { hash, subject: message.split('\n')[0], problems: checkMessage(message) };
  });
}

/** The recorded base: the first word of .ci/commit-check-base. */
export function recordedBase(root) {
  return readFileSync(path.join(root, '.ci', 'commit-check-base'), 'utf8')
    .trim()
    .split(/\s+/)[0];
}

function main(argv) {
  // The repository of the working directory (`.ci/run` runs it at the root).
  const root = git(['rev-parse', '--show-toplevel'], process.cwd()).trim();
  if (argv.includes('--stdin')) {
    const problems = checkMessage(readFileSync(0, 'utf8'));
    for (const problem of problems) console.error(`check-commits: ${problem}`);
    return problems.length ? 1 : 0;
  }
  const at = argv.indexOf('--base');
  const base = at >= 0 ? argv[at + 1] : recordedBase(root);
  const results = checkRange(base, root);
  const failed = results.filter((result) => result.problems.length);
  for (const { hash, subject, problems } of failed) {
    console.error(`${hash.slice(0, 10)} ${subject}`);
    for (const problem of problems) console.error(`  - ${problem}`);
  }
  console.log(
    `check-commits: ${results.length} commit(s) since ${base.slice(0, 10)}, ${failed.length} with problems`,
  );
  return failed.length ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (error) {
    console.error(`check-commits: ${error.message}`);
    process.exitCode = 1;
  }
}
