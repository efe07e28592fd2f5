/*
 * Users clone only the repository, so no tracked file may name a path outside it: a relative
 * path that climbs above the repository root from the file's own directory (`../outside/x.md`
 * in a root README, in a Markdown link or in plain text), or an absolute path of one machine
 * (`/work/...`, a home directory, this checkout's own location).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The workspace root (this file is tools/nx/src/lib/outside-paths.ts). */
export const REPO_ROOT = path.resolve(__dirname, '../../../..');

/**
 * Tracked files the check skips: CI's own scripts (they run from a checkout they locate
 * themselves), and this check and its test, whose examples are such paths.
 */
const SKIPPED = /^\.ci\/|^tools\/nx\/src\/(lib\/outside-paths|repository-paths\.spec)\.ts$/;

/**
 * A relative path with at least one `..` segment, starting where a path can start (not inside
 * a URL or an absolute path, whose `..` climbs from somewhere else).
 */
const RELATIVE_PATH = /(?<![\w./~@:$%-])(?:\.\.?\/)*\.\.\/[^\s'"`()[\]<>,;|*{}]*/g;

/** Absolute paths of a particular machine: a workspace, a home directory. */
const MACHINE_PATHS = /(?<![\w./-])\/(?:work|home|Users)\/[^\s'"`()[\]<>,;|*{}]*/g;

export interface OutsideReference {
  file: string;
  line: number;
  path: string;
  why: string;
}

/** Tracked files (staged ones included) relative to the root, in git's order. */
export function trackedFiles(root = REPO_ROOT): string[] {
  return execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file && !SKIPPED.test(file));
}

/** Where `relative`, written in `file`, points from the repository root ('..' and below: outside). */
function resolvedFrom(file: string, relative: string): string {
  return path.posix.normalize(path.posix.join(path.posix.dirname(file), relative));
}

const isOutside = (resolved: string) => resolved === '..' || resolved.startsWith('../');

/**
 * Whether a relative path quoted as code in Markdown names something of the repository from
 * some directory of it: code often quotes another file or a command run elsewhere (a
 * kustomization's `../../monitoring`), so it is judged from the directories of the tracked
 * files, not from the Markdown file's own.
 */
function resolvesSomewhere(relative: string, tracked: readonly string[]): boolean {
  const directories = new Set(tracked.map((file) => path.posix.dirname(file)));
  const entries = new Set(tracked);
  for (const file of tracked) {
    for (let dir = path.posix.dirname(file); dir !== '.'; dir = path.posix.dirname(dir)) {
      entries.add(dir);
    }
  }
  return [...directories].some((dir) => {
    const resolved = path.posix.normalize(path.posix.join(dir, relative)).replace(/\/$/, '');
    return !isOutside(resolved) && entries.has(resolved);
  });
}

/**
 * The references to paths outside the repository in one file's text.
 *
 * @param tracked every tracked file, for the relative paths of Markdown code blocks
 * @param checkoutRoot the absolute path of this checkout, itself a machine path
 */
export function outsideReferences(
  file: string,
  text: string,
  tracked: readonly string[],
  checkoutRoot = REPO_ROOT,
): OutsideReference[] {
  const found: OutsideReference[] = [];
  const markdown = /\.md$/i.test(file);
  let inCodeBlock = false;
  // Inside an inline code span that a previous line of the paragraph opened.
  let inCodeSpan = false;
  const backticksIn = (part: string) => (part.match(/`/g) ?? []).length;
  text.split('\n').forEach((content, index) => {
    const line = index + 1;
    if (markdown && /^\s*(```|~~~)/.test(content)) {
      inCodeBlock = !inCodeBlock;
      inCodeSpan = false;
      return;
    }
    if (content.trim() === '') inCodeSpan = false;
    for (const match of content.matchAll(RELATIVE_PATH)) {
      const relative = match[0];
      const resolved = resolvedFrom(file, relative);
      if (!isOutside(resolved)) continue;
      const inCode =
        inCodeBlock || inCodeSpan !== (backticksIn(content.slice(0, match.index)) % 2 === 1);
      if (markdown && inCode && resolvesSomewhere(relative, tracked)) continue;
      found.push({ file, line, path: relative, why: `climbs out of the repository (${resolved})` });
    }
    if (markdown && !inCodeBlock && backticksIn(content) % 2 === 1) inCodeSpan = !inCodeSpan;
    for (const match of content.matchAll(MACHINE_PATHS)) {
      found.push({ file, line, path: match[0], why: 'an absolute path of one machine' });
    }
    if (content.includes(checkoutRoot)) {
      found.push({ file, line, path: checkoutRoot, why: 'the absolute path of this checkout' });
    }
  });
  return found;
}

/** Every reference to a path outside the repository in its tracked text files. */
export function outsideReferencesOfRepository(root = REPO_ROOT): OutsideReference[] {
  const tracked = trackedFiles(root);
  return tracked.flatMap((file) => {
    let text: string;
    try {
      text = readFileSync(path.join(root, file), 'utf8');
    } catch {
      return []; // listed but absent (a deletion not yet staged)
    }
    if (text.includes('\0')) return []; // binary
    return outsideReferences(file, text, tracked, root);
  });
}
