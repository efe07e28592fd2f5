import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

/** The workspace root (this file is tools/deploy-check/src/lib/repo.ts). */
export const REPO_ROOT = path.resolve(__dirname, '../../../..');

export function repoPath(...parts: string[]): string {
  return path.join(REPO_ROOT, ...parts);
}

/**
 * Parsed YAML or JSON that a check walks freely: a wrong path fails the check that takes it,
 * which is all the typing a test of data files needs.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ParsedYaml = any;

export function readText(file: string): string {
  return readFileSync(file, 'utf8');
}

/**
 * Every document of a YAML file as plain data. Merge keys (`<<`) are resolved, as Docker
 * Compose does; a syntax error throws with the file name.
 */
export function readYamlDocuments(file: string): unknown[] {
  const documents = parseAllDocuments(readText(file), { merge: true });
  const list = Array.isArray(documents) ? documents : [];
  for (const document of list) {
    if (document.errors.length > 0) {
      throw new Error(`${file}: ${document.errors.map((e) => e.message).join('; ')}`);
    }
  }
  return list
    .map((document) => document.toJS() as unknown)
    .filter((data) => data !== null && data !== undefined);
}

export function readYaml<T = unknown>(file: string): T {
  const [first, ...rest] = readYamlDocuments(file);
  if (first === undefined || rest.length > 0) {
    throw new Error(`${file}: expected exactly one YAML document`);
  }
  return first as T;
}

export function isDirectory(file: string): boolean {
  return existsSync(file) && statSync(file).isDirectory();
}

/** A deep copy, for tests that spoil a manifest in memory. */
export function clone<T>(value: T): T {
  return structuredClone(value);
}
