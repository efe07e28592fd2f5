/*
 * The breaking-change gate of the committed OpenAPI documents. api-smart-diff compares two
 * versions of a document and classifies each difference (a removed path, operation or
 * response field, a narrowed type or range, a new required parameter or body field are
 * "breaking"). A breaking change passes only when openapi/CHANGELOG.md acknowledges it with a
 * line of the form
 *
 *   - breaking <document> <action> <JSON pointer>: <why it is acceptable>
 *
 * e.g. `- breaking card-issue remove #/paths/~1api~1v1~1card-issue~1{id}/get: replaced by ...`.
 * The gate's failure message prints the exact lines to paste.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { apiCompare } from 'api-smart-diff';
import { OpenApiDocument, REPO_ROOT, repoPath } from './openapi-documents';

export const CHANGELOG_PATH = repoPath('openapi', 'CHANGELOG.md');

export interface BreakingChange {
  document: string;
  /** The acknowledgement key: `<document> <action> <JSON pointer>`. */
  key: string;
  /** api-smart-diff's wording of the change. */
  description: string;
}

/** RFC 6901 pointer of a path in the document. */
function pointer(path: (string | number)[]): string {
  return `#/${path.map((part) => String(part).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
}

/**
 * The breaking changes from `before` to `after`, as seen by a client: under `paths` (the
 * components the paths use are compared through their $refs, so a component change shows up
 * once per operation it affects, and an unused component breaks no one).
 */
export function breakingChanges(
  document: string,
  before: OpenApiDocument,
  after: OpenApiDocument,
): BreakingChange[] {
  // api-smart-diff normalizes its inputs in place (drops `required: false`, ...): give it copies.
  const { diffs } = apiCompare(structuredClone(before), structuredClone(after));
  return diffs
    .filter((diff) => diff.type === 'breaking' && diff.path[0] === 'paths')
    .map((diff) => ({
      document,
      key: `${document} ${diff.action} ${pointer(diff.path)}`,
      description: diff.description ?? `${diff.action} ${pointer(diff.path)}`,
    }));
}

/** The acknowledgement keys of a changelog text (`- breaking <key>: <reason>` lines). */
export function acknowledgements(changelog: string): Set<string> {
  const keys = new Set<string>();
  for (const line of changelog.split('\n')) {
    const match = /^\s*[-*]\s+breaking\s+(\S+\s+\S+\s+#\S*):/.exec(line);
    if (match) keys.add(match[1]);
  }
  return keys;
}

/** The breaking changes the changelog does not acknowledge. */
export function unacknowledged(changes: BreakingChange[], changelog: string): BreakingChange[] {
  const acknowledged = acknowledgements(changelog);
  return changes.filter((change) => !acknowledged.has(change.key));
}

export function readChangelog(): string {
  return existsSync(CHANGELOG_PATH) ? readFileSync(CHANGELOG_PATH, 'utf8') : '';
}

/** The message naming the changes and the changelog lines that would acknowledge them. */
export function gateMessage(changes: BreakingChange[], comparison: string): string {
  return (
    `${changes.length} breaking OpenAPI change(s) ${comparison}, not acknowledged in openapi/CHANGELOG.md:\n` +
    changes
      .map((change) => `  ${change.description}\n    - breaking ${change.key}: <why>`)
      .join('\n') +
    '\nKeep the contract, or acknowledge each change with its line (a reason after the colon).'
  );
}

/**
 * The committed document as of a git revision (the base a change is compared with), or
 * undefined where the file did not exist yet.
 */
export function documentAtRevision(
  revision: string,
  relativePath: string,
): OpenApiDocument | undefined {
  try {
    const text = execFileSync('git', ['show', `${revision}:${relativePath}`], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 64 * 1024 * 1024,
    });
    return JSON.parse(text) as OpenApiDocument;
  } catch {
    return undefined;
  }
}

/** Whether the revision exists in this checkout (a shallow clone may lack HEAD~1). */
export function revisionExists(revision: string): boolean {
  try {
    execFileSync('git', ['rev-parse', '--verify', '--quiet', `${revision}^{commit}`], {
      cwd: REPO_ROOT,
      stdio: 'ignore',
    });
    return true;
  } catch {
    return false;
  }
}
