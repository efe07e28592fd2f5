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
 * The gate's failure message prints the exact lines to paste. The same comparison keeps each
 * document's info.version in step (docs/versioning.md): a breaking change raises its major
 * version, an addition its minor version.
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
  return compareDocuments(document, before, after).breaking;
}

/**
 * How far a change of a document reaches, as docs/versioning.md counts it: `major` when it
 * breaks a client, `minor` when it adds (or deprecates) something, `none` when only texts,
 * examples or unused components changed.
 */
export type ChangeLevel = 'major' | 'minor' | 'none';

/** The breaking changes from `before` to `after` and how far the whole change reaches. */
export function compareDocuments(
  document: string,
  before: OpenApiDocument,
  after: OpenApiDocument,
): { breaking: BreakingChange[]; level: ChangeLevel } {
  // api-smart-diff normalizes its inputs in place (drops `required: false`, ...): give it copies.
  const { diffs } = apiCompare(structuredClone(before), structuredClone(after));
  const onPaths = diffs.filter((diff) => diff.path[0] === 'paths');
  const breaking = onPaths
    .filter((diff) => diff.type === 'breaking')
    .map((diff) => ({
      document,
      key: `${document} ${diff.action} ${pointer(diff.path)}`,
      description: diff.description ?? `${diff.action} ${pointer(diff.path)}`,
    }));
  const adds = onPaths.some((diff) => diff.type === 'non-breaking' || diff.type === 'deprecated');
  return { breaking, level: breaking.length ? 'major' : adds ? 'minor' : 'none' };
}

type Version = [major: number, minor: number, patch: number];

/** MAJOR.MINOR.PATCH, as info.version must be written. */
export function semanticVersion(text: unknown): Version | undefined {
  const match = typeof text === 'string' ? /^(\d+)\.(\d+)\.(\d+)$/.exec(text) : null;
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

/** An earlier version as it may have been written (`2.0`, `1`); missing parts are 0. */
function earlierVersion(text: unknown): Version | undefined {
  const match = typeof text === 'string' ? /^(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(text) : null;
  return match ? [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)] : undefined;
}

function compareVersions(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/**
 * The version rule of docs/versioning.md from one version of a document to the next, or
 * undefined when it holds: info.version is MAJOR.MINOR.PATCH and never goes down; a breaking
 * change raises MAJOR; an addition raises MINOR (or MAJOR).
 *
 * @param where the file that sets the document's version, for the message
 */
export function versionProblem(
  document: string,
  before: OpenApiDocument,
  after: OpenApiDocument,
  level: ChangeLevel,
  where = 'its configure-app.ts or reference-services.documents.ts',
): string | undefined {
  const now = semanticVersion(after.info.version);
  if (!now) {
    return `${document}: info.version ${JSON.stringify(after.info.version)} is not MAJOR.MINOR.PATCH (docs/versioning.md)`;
  }
  const was = earlierVersion(before.info.version);
  if (!was) return undefined; // no comparable version before: nothing to step from
  const from = was.join('.');
  if (compareVersions(now, was) < 0) {
    return `${document}: info.version went down from ${from} to ${now.join('.')}`;
  }
  const needed =
    level === 'major' && now[0] <= was[0]
      ? `${was[0] + 1}.0.0, since the change breaks clients`
      : level === 'minor' && compareVersions(now, [was[0], was[1] + 1, 0]) < 0
        ? `${was[0]}.${was[1] + 1}.0, since the change adds to the API`
        : undefined;
  return needed
    ? `${document}: info.version ${now.join('.')} must be at least ${needed} (was ${from}; set it in ${where}, docs/versioning.md)`
    : undefined;
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
