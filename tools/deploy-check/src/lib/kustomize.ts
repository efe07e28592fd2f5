import path from 'node:path';
import { existsSync } from 'node:fs';
import { isDirectory, readYaml, readYamlDocuments, repoPath } from './repo';
import type { KubernetesObject } from './kubernetes-schema';

export interface Kustomization {
  apiVersion: string;
  kind: string;
  namespace?: string;
  resources?: string[];
  images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
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
  /** The kustomization directory that lists the file. */
  dir: string;
  object: KubernetesObject;
}

export const K8S_ROOT = repoPath('k8s');

export function kustomizationIn(dir: string): KustomizationFile {
  const file = path.join(dir, 'kustomization.yaml');
  return { dir, file, kustomization: readYaml<Kustomization>(file) };
}

/** Every kustomization reachable from k8s/kustomization.yaml, depth first. */
export function kustomizationTree(root = K8S_ROOT): KustomizationFile[] {
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

/** Every object of every file the kustomizations list. */
export function manifests(root = K8S_ROOT): Manifest[] {
  const out: Manifest[] = [];
  for (const { dir, kustomization } of kustomizationTree(root)) {
    for (const resource of kustomization.resources ?? []) {
      const target = path.join(dir, resource);
      if (isDirectory(target)) continue;
      for (const object of readYamlDocuments(target)) {
        out.push({
          file: path.relative(repoPath(), target),
          dir: path.relative(repoPath(), dir),
          object: object as KubernetesObject,
        });
      }
    }
  }
  return out;
}
