/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call --
   rendered documents are parsed YAML (ParsedYaml, repo.ts). */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubernetesObject } from './kubernetes-schema';
import { type ParsedYaml, REPO_ROOT } from './repo';

/** kubectl's built-in kustomize; without it the renders are skipped, except under CI=true. */
export function kubectlVersion(): string | undefined {
  try {
    return execFileSync('kubectl', ['version', '--client'], { stdio: 'pipe' }).toString();
  } catch {
    return undefined;
  }
}

/** `describe` when kubectl is there (or CI=true, where its absence must fail), else skipped. */
export const describeWithKubectl: jest.Describe =
  kubectlVersion() || process.env.CI ? describe : describe.skip;

/**
 * `kubectl kustomize k8s/<dir>` of a temporary copy of k8s/ in which the prod Secrets'
 * untracked env files are their committed examples (a real pipeline writes them from its
 * vault). `edit` may change the copy first (its k8s/ folder is passed): a test seeds a breakage
 * or enables an optional component there, never in the repository.
 */
export function render(dir: string, edit?: (k8s: string) => void): KubernetesObject[] {
  const root = mkdtempSync(path.join(tmpdir(), 'kustomize-'));
  try {
    const k8s = path.join(root, 'k8s');
    cpSync(path.join(REPO_ROOT, 'k8s'), k8s, { recursive: true });
    for (const overlay of readdirSync(path.join(k8s, 'overlays'))) {
      const folder = path.join(k8s, 'overlays', overlay);
      for (const file of readdirSync(folder).filter((f) => f.endsWith('.env.example')))
        cpSync(path.join(folder, file), path.join(folder, file.replace(/\.example$/, '')));
    }
    edit?.(k8s);
    const output = execFileSync('kubectl', ['kustomize', path.join(k8s, dir)], {
      stdio: 'pipe',
    }).toString();
    return parseAllDocuments(output).map((d) => {
      const object: ParsedYaml = d.toJS();
      // kustomize folds long base64 values over lines; the API server's decoder skips the
      // newlines, the schema's "byte" format does not.
      for (const key of Object.keys(object.data ?? {}))
        if (object.kind === 'Secret') object.data[key] = object.data[key].replace(/\s+/g, '');
      return object as KubernetesObject;
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** The rendered object of a kind and name (kustomize's hash suffix included in the name). */
export function find(objects: KubernetesObject[], kind: string, name: string | RegExp): ParsedYaml {
  return objects.find(
    (o) =>
      o.kind === kind &&
      (typeof name === 'string' ? o.metadata.name === name : name.test(o.metadata.name)),
  );
}

/**
 * Enables the optional components the prod overlay lists commented out, as docs/operations.md
 * tells an operator to: the `# components:` block loses its comment marks. Throws when the
 * block is not there (the documented way would not work).
 */
export function enableOptionalComponents(k8s: string): void {
  const file = path.join(k8s, 'overlays', 'prod', 'kustomization.yaml');
  const text = readFileSync(file, 'utf8');
  const enabled = text.replace(
    /^# components:\n((?:# {3}- \S+.*\n)+)/m,
    (_, items: string) => `components:\n${items.replace(/^# /gm, '')}`,
  );
  if (enabled === text) throw new Error(`${file}: no commented "# components:" block`);
  writeFileSync(file, enabled);
}
