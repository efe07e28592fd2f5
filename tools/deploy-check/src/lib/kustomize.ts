import path from 'node:path';
import { existsSync } from 'node:fs';
import { isDirectory, readText, readYaml, readYamlDocuments, REPO_ROOT } from './repo';
import type { KubernetesObject } from './kubernetes-schema';

/** A configMapGenerator or secretGenerator entry. */
export interface GeneratorEntry {
  name: string;
  behavior?: 'create' | 'merge' | 'replace';
  envs?: string[];
  literals?: string[];
  files?: string[];
}

export interface Kustomization {
  apiVersion: string;
  kind: string;
  namespace?: string;
  resources?: string[];
  images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
  configMapGenerator?: GeneratorEntry[];
  secretGenerator?: GeneratorEntry[];
  [field: string]: unknown;
}

export interface KustomizationFile {
  dir: string;
  file: string;
  kustomization: Kustomization;
}

export interface Manifest {
  /** Path relative to the repository root. */
  file: string;
  /** The kustomization directory that lists the file, relative to the repository root. */
  dir: string;
  object: KubernetesObject;
}

/** k8s/ of a checkout (the repository, or a temporary copy a test spoils). */
export function k8sRoot(repoRoot = REPO_ROOT): string {
  return path.join(repoRoot, 'k8s');
}

/** The base: both services without their Secrets. */
export function baseDir(repoRoot = REPO_ROOT): string {
  return path.join(k8sRoot(repoRoot), 'base');
}

export const OVERLAYS = ['dev', 'prod'] as const;
export type Overlay = (typeof OVERLAYS)[number];

export function overlayDir(overlay: Overlay, repoRoot = REPO_ROOT): string {
  return path.join(k8sRoot(repoRoot), 'overlays', overlay);
}

/**
 * Optional kustomize Components (`kind: Component`, folders under k8s/): no overlay lists them
 * by default; k8s/overlays/prod names them in a commented `components:` block that an operator
 * uncomments (docs/operations.md, "Optional components").
 */
export const OPTIONAL_COMPONENTS = ['monitoring', 'ingress'] as const;

export function componentDir(component: string, repoRoot = REPO_ROOT): string {
  return path.join(k8sRoot(repoRoot), component);
}

export function kustomizationIn(dir: string): KustomizationFile {
  const file = path.join(dir, 'kustomization.yaml');
  return { dir, file, kustomization: readYaml<Kustomization>(file) };
}

/** Every kustomization reachable from the one in `root` (itself first), depth first. */
export function kustomizationTree(root: string): KustomizationFile[] {
  const top = kustomizationIn(root);
  const out = [top];
  for (const resource of top.kustomization.resources ?? []) {
    const target = path.join(root, resource);
    if (isDirectory(target)) out.push(...kustomizationTree(target));
  }
  return out;
}

/** Resources of a kustomization that name neither a file nor a folder with a kustomization. */
export function missingResources({ dir, kustomization }: KustomizationFile): string[] {
  return (kustomization.resources ?? []).filter((resource) => {
    const target = path.join(dir, resource);
    if (isDirectory(target)) return !existsSync(path.join(target, 'kustomization.yaml'));
    return !existsSync(target);
  });
}

/** Every object of every file the kustomizations under `root` list. */
export function manifests(root: string, repoRoot = REPO_ROOT): Manifest[] {
  const out: Manifest[] = [];
  for (const { dir, kustomization } of kustomizationTree(root)) {
    for (const resource of kustomization.resources ?? []) {
      const target = path.join(dir, resource);
      if (isDirectory(target)) continue;
      for (const object of readYamlDocuments(target)) {
        out.push({
          file: path.relative(repoRoot, target),
          dir: path.relative(repoRoot, dir),
          object: object as KubernetesObject,
        });
      }
    }
  }
  return out;
}

/** KEY=VALUE lines of an env file as kustomize reads them (comments and blank lines skipped). */
export function parseEnvFile(text: string): Record<string, string> {
  const data: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const at = line.indexOf('=');
    if (at <= 0) throw new Error(`not KEY=VALUE: ${line}`);
    data[line.slice(0, at)] = line.slice(at + 1);
  }
  return data;
}

function literal(text: string): [string, string] {
  const at = text.indexOf('=');
  if (at <= 0) throw new Error(`not KEY=VALUE: ${text}`);
  return [text.slice(0, at), text.slice(at + 1)];
}

/**
 * The data of one generator entry. An env file that does not exist (the untracked prod
 * Secrets) is read from its committed `.example` instead, so the keys are still known.
 */
export function generatorData(dir: string, entry: GeneratorEntry): Record<string, string> {
  const data: Record<string, string> = {};
  for (const env of entry.envs ?? []) {
    const file = path.join(dir, env);
    const source = existsSync(file) ? file : `${file}.example`;
    Object.assign(data, parseEnvFile(readText(source)));
  }
  for (const text of entry.literals ?? []) {
    const [key, value] = literal(text);
    data[key] = value;
  }
  return data;
}

/**
 * What the generators of a kustomization and everything below it produce, by name: the
 * deepest kustomization first, then the ones above merge into it (behavior merge) or replace
 * it, as kustomize does. Names are without the hash suffix.
 */
export function generated(
  root: string,
  kind: 'configMapGenerator' | 'secretGenerator',
): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  for (const { dir, kustomization } of kustomizationTree(root).reverse()) {
    for (const entry of kustomization[kind] ?? []) {
      const data = generatorData(dir, entry);
      const behavior = entry.behavior ?? 'create';
      if (behavior === 'merge') out.set(entry.name, { ...(out.get(entry.name) ?? {}), ...data });
      else out.set(entry.name, data);
    }
  }
  return out;
}
