import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { deploymentProblems, tagOf } from './lib/rules';
import { REPO_ROOT } from './lib/repo';

/**
 * A temporary copy of what the rules read (k8s/, the Dockerfiles, docker-compose.yml), spoiled
 * by `edit`: the rules must name the breakage there, while the repository itself passes.
 */
function problemsAfter(file: string, edit: (text: string) => string): string[] {
  const root = mkdtempSync(path.join(tmpdir(), 'deploy-check-'));
  try {
    cpSync(path.join(REPO_ROOT, 'k8s'), path.join(root, 'k8s'), { recursive: true });
    cpSync(path.join(REPO_ROOT, 'docker-compose.yml'), path.join(root, 'docker-compose.yml'));
    for (const app of ['card-issue', 'client-registration'])
      cpSync(
        path.join(REPO_ROOT, 'apps', app, 'Dockerfile'),
        path.join(root, 'apps', app, 'Dockerfile'),
      );
    const target = path.join(root, file);
    const before = readFileSync(target, 'utf8');
    const after = edit(before);
    expect(after).not.toBe(before);
    writeFileSync(target, after);
    return deploymentProblems(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

describe('deployment rules', () => {
  it('the repository breaks none', () => {
    expect(deploymentProblems()).toEqual([]);
  });

  it.each([
    [
      'a negative probe period',
      'k8s/card-issue/deployment.yaml',
      (t: string) => t.replace(/periodSeconds: 5\b/, 'periodSeconds: -5'),
      /card-issue\/deployment\.yaml: card-issue\.readinessProbe\.periodSeconds is -5/,
    ],
    [
      'a zero failure threshold on a Job-less service',
      'k8s/client-registration/deployment.yaml',
      (t: string) => t.replace(/failureThreshold: 6\b/, 'failureThreshold: 0'),
      /livenessProbe\.failureThreshold is 0/,
    ],
    [
      'an invalid LOG_LEVEL in the base ConfigMap',
      'k8s/card-issue/config.env',
      (t: string) => t.replace('LOG_LEVEL=info', 'LOG_LEVEL=loud'),
      /^(base|overlays\/prod) card-issue: Invalid configuration: LOG_LEVEL="loud"/,
    ],
    [
      'an invalid LOG_LEVEL merged by an overlay',
      'k8s/overlays/dev/kustomization.yaml',
      (t: string) => t.replace('LOG_LEVEL=debug', 'LOG_LEVEL=verbose'),
      /^overlays\/dev card-issue: Invalid configuration: LOG_LEVEL="verbose"/,
    ],
    [
      'a non-numeric timeout in a ConfigMap',
      'k8s/client-registration/config.env',
      (t: string) => t.replace('SHUTDOWN_TIMEOUT_MS=25000', 'SHUTDOWN_TIMEOUT_MS=25s'),
      /client-registration: Invalid configuration: SHUTDOWN_TIMEOUT_MS="25s"/,
    ],
    [
      'the image tag latest in a kustomization',
      'k8s/card-issue/kustomization.yaml',
      (t: string) => t.replace('newTag: 0.1.0', 'newTag: latest'),
      /card-issue\/kustomization\.yaml: image bank-backoffice\/card-issue is not pinned/,
    ],
    [
      'the image tag latest on a container',
      'k8s/client-registration/migration-job.yaml',
      (t: string) =>
        t.replace(
          'image: bank-backoffice/client-registration',
          'image: bank-backoffice/client-registration:latest',
        ),
      /migration-job\.yaml: container migrate runs bank-backoffice\/client-registration:latest/,
    ],
    [
      'a Dockerfile base image by tag latest',
      'apps/card-issue/Dockerfile',
      (t: string) => t.replace(/^ARG NODE_IMAGE=.*$/m, 'ARG NODE_IMAGE=node:latest'),
      /apps\/card-issue\/Dockerfile: FROM node:latest is not pinned by digest/,
    ],
    [
      'an unknown Dockerfile instruction',
      'apps/client-registration/Dockerfile',
      (t: string) => t.replace(/^COPY --from=build/m, 'COPPY --from=build'),
      /apps\/client-registration\/Dockerfile:\d+: unknown instruction COPPY/,
    ],
    [
      'replicas in a Deployment an HPA drives',
      'k8s/card-issue/deployment.yaml',
      (t: string) =>
        t.replace('  revisionHistoryLimit: 5', '  replicas: 2\n  revisionHistoryLimit: 5'),
      /Deployment card-issue sets replicas, but an HPA drives it/,
    ],
    [
      'a disruption budget by minAvailable',
      'k8s/client-registration/pdb.yaml',
      (t: string) => t.replace('maxUnavailable: 1', 'minAvailable: 1'),
      /PodDisruptionBudget client-registration is not maxUnavailable: 1/,
    ],
  ])('%s is reported', (_, file, edit, message) => {
    // Each environment (base, dev, prod) that inherits the breakage names it.
    const problems = problemsAfter(file, edit);
    expect(problems.length).toBeGreaterThan(0);
    for (const problem of problems) expect(problem).toMatch(message);
  });

  it('reads image tags with and without digest and registry port', () => {
    expect(tagOf('node:24.18.0-bookworm-slim@sha256:' + 'a'.repeat(64))).toBe(
      '24.18.0-bookworm-slim',
    );
    expect(tagOf('registry.example:5000/card-issue')).toBeUndefined();
    expect(tagOf('registry.example:5000/card-issue:latest')).toBe('latest');
  });
});
