/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument --
   the rules walk parsed YAML (ParsedYaml, repo.ts): a wrong path fails the rule's own tests. */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { type BaseEnvironment, validateEnvironment } from '@bank/shared/config';
import { CardIssueEnvironment } from '@bank/card-issue/testing';
import { ClientRegistrationEnvironment } from '@bank/client-registration/testing';
import { parseDockerfile, stagesOf } from './dockerfile';
import {
  baseDir,
  generated,
  kustomizationTree,
  type Manifest,
  manifests,
  OVERLAYS,
  overlayDir,
} from './kustomize';
import { type ParsedYaml, readText, readYaml, REPO_ROOT } from './repo';

/**
 * Rules over a whole checkout (the repository, or a temporary copy that a test spoils), each
 * returning its problems as sentences naming the file: an empty list means the rule holds.
 * The specs assert [] on the repository and a problem for each seeded breakage.
 */

export const SERVICES = ['card-issue', 'client-registration'] as const;
export type ServiceName = (typeof SERVICES)[number];

export const ENVIRONMENTS: Record<ServiceName, new () => BaseEnvironment> = {
  'card-issue': CardIssueEnvironment,
  'client-registration': ClientRegistrationEnvironment,
};

/** Every instruction a Dockerfile may hold (Dockerfile reference; MAINTAINER is deprecated). */
export const DOCKERFILE_INSTRUCTIONS = new Set([
  'ADD',
  'ARG',
  'CMD',
  'COPY',
  'ENTRYPOINT',
  'ENV',
  'EXPOSE',
  'FROM',
  'HEALTHCHECK',
  'LABEL',
  'ONBUILD',
  'RUN',
  'SHELL',
  'STOPSIGNAL',
  'USER',
  'VOLUME',
  'WORKDIR',
]);

const PROBES = ['startupProbe', 'readinessProbe', 'livenessProbe'] as const;
/** Probe fields the kubelet needs to be at least 1 (0 or less is rejected or means "never"). */
const PROBE_POSITIVE = ['periodSeconds', 'timeoutSeconds', 'failureThreshold', 'successThreshold'];

function podSpecOf(object: ParsedYaml): ParsedYaml {
  return object.spec?.template?.spec;
}

/** Probes: every timing field present is a positive integer (a negative period passes the schema). */
export function probeProblems(objects: Manifest[]): string[] {
  const problems: string[] = [];
  for (const { file, object } of objects) {
    for (const container of podSpecOf(object)?.containers ?? []) {
      for (const probe of PROBES) {
        const spec = container[probe];
        if (!spec) continue;
        for (const field of PROBE_POSITIVE) {
          const value = spec[field];
          if (value !== undefined && !(Number.isInteger(value) && value >= 1))
            problems.push(`${file}: ${container.name}.${probe}.${field} is ${value}, not >= 1`);
        }
        const delay = spec.initialDelaySeconds;
        if (delay !== undefined && !(Number.isInteger(delay) && delay >= 0))
          problems.push(`${file}: ${container.name}.${probe}.initialDelaySeconds is ${delay}`);
      }
    }
  }
  return problems;
}

/** A Deployment that an HPA scales sets no replicas (an apply would reset the HPA's count). */
export function replicasProblems(objects: Manifest[]): string[] {
  const scaled = new Set(
    objects
      .filter((m) => m.object.kind === 'HorizontalPodAutoscaler')
      .map(
        (m) => `${m.dir}/${m.object.spec.scaleTargetRef.kind}/${m.object.spec.scaleTargetRef.name}`,
      ),
  );
  return objects
    .filter(
      (m) =>
        m.object.kind === 'Deployment' &&
        scaled.has(`${m.dir}/Deployment/${m.object.metadata.name}`) &&
        m.object.spec.replicas !== undefined,
    )
    .map(
      (m) => `${m.file}: Deployment ${m.object.metadata.name} sets replicas, but an HPA drives it`,
    );
}

/** Disruption budgets let one pod go at a time, whatever the autoscaler's count. */
export function disruptionBudgetProblems(objects: Manifest[]): string[] {
  return objects
    .filter((m) => m.object.kind === 'PodDisruptionBudget')
    .filter((m) => m.object.spec.maxUnavailable !== 1 || m.object.spec.minAvailable !== undefined)
    .map(
      (m) => `${m.file}: PodDisruptionBudget ${m.object.metadata.name} is not maxUnavailable: 1`,
    );
}

/**
 * The configuration each environment (base, every overlay) gives each service, ConfigMap and
 * Secret together, passes the service's own start-up validation: an invalid LOG_LEVEL, a
 * misspelled boolean or a non-numeric timeout would stop the pods at start. A Secret read from
 * a `.example` file has placeholders, which are valid strings.
 */
export function configurationProblems(repoRoot = REPO_ROOT): string[] {
  const problems: string[] = [];
  const roots = [
    ['base', baseDir(repoRoot)],
    ...OVERLAYS.map((overlay) => [`overlays/${overlay}`, overlayDir(overlay, repoRoot)]),
  ];
  for (const [label, root] of roots) {
    const configs = generated(root, 'configMapGenerator');
    const secrets = generated(root, 'secretGenerator');
    for (const service of SERVICES) {
      const config = configs.get(`${service}-config`);
      if (!config) {
        problems.push(`${label}: no ConfigMap ${service}-config`);
        continue;
      }
      // The base has no Secret: its configuration is checked with the overlay's stand-ins.
      const secret = secrets.get(`${service}-secrets`) ?? {
        DATABASE_URL: 'postgres://user:REPLACE_ME@db:5432/db',
        X_SECRET: 'REPLACE_ME_WITH_32_OR_MORE_RANDOM_CHARACTERS',
      };
      try {
        validateEnvironment(ENVIRONMENTS[service], { ...config, ...secret });
      } catch (error) {
        problems.push(`${label} ${service}: ${(error as Error).message.replace(/\s+/g, ' ')}`);
      }
    }
  }
  return problems;
}

function dockerfiles(repoRoot: string): string[] {
  return readdirSync(path.join(repoRoot, 'apps'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => path.join(repoRoot, 'apps', e.name, 'Dockerfile'))
    .filter((file) => {
      try {
        readText(file);
        return true;
      } catch {
        return false;
      }
    });
}

/** Every Dockerfile instruction is one Docker knows (a typo such as COPPY fails the build late). */
export function dockerfileInstructionProblems(repoRoot = REPO_ROOT): string[] {
  return dockerfiles(repoRoot).flatMap((file) =>
    parseDockerfile(readText(file))
      .filter((i) => !DOCKERFILE_INSTRUCTIONS.has(i.keyword))
      .map((i) => `${path.relative(repoRoot, file)}:${i.line}: unknown instruction ${i.keyword}`),
  );
}

/** The tag of an image reference, if any (`name:tag@sha256:...`). */
export function tagOf(image: string): string | undefined {
  const withoutDigest = image.replace(/@sha256:[0-9a-f]+$/, '');
  const match = /:([^/:]+)$/.exec(withoutDigest);
  return match?.[1];
}

/**
 * No image is `latest` (or untagged and undigested where nothing else sets its tag): the
 * kustomizations' images entries, the containers, the Dockerfiles' FROM (which must also be
 * pinned by digest) and docker-compose.yml.
 */
export function imageTagProblems(repoRoot = REPO_ROOT): string[] {
  const problems: string[] = [];
  const roots = [baseDir(repoRoot), ...OVERLAYS.map((o) => overlayDir(o, repoRoot))];
  for (const root of roots) {
    for (const { file, kustomization } of kustomizationTree(root)) {
      for (const image of kustomization.images ?? []) {
        if (image.newTag === 'latest' || (image.newTag === undefined && !image.digest))
          problems.push(`${path.relative(repoRoot, file)}: image ${image.name} is not pinned`);
      }
    }
  }
  for (const { file, object } of manifests(baseDir(repoRoot), repoRoot)) {
    for (const container of podSpecOf(object)?.containers ?? []) {
      if (tagOf(container.image) === 'latest')
        problems.push(`${file}: container ${container.name} runs ${container.image}`);
    }
  }
  for (const file of dockerfiles(repoRoot)) {
    for (const stage of stagesOf(parseDockerfile(readText(file)))) {
      if (tagOf(stage.image) === 'latest' || !/@sha256:[0-9a-f]{64}$/.test(stage.image))
        problems.push(
          `${path.relative(repoRoot, file)}: FROM ${stage.image} is not pinned by digest`,
        );
    }
  }
  const compose = readYaml<ParsedYaml>(path.join(repoRoot, 'docker-compose.yml'));
  for (const [name, service] of Object.entries<ParsedYaml>(compose.services ?? {})) {
    const image: string | undefined = service.image;
    if (image && (tagOf(image) === 'latest' || tagOf(image) === undefined))
      problems.push(`docker-compose.yml: service ${name} image ${image} is not pinned`);
  }
  return problems;
}

/** Every rule over a checkout. */
export function deploymentProblems(repoRoot = REPO_ROOT): string[] {
  const base = manifests(baseDir(repoRoot), repoRoot);
  const problems = [
    ...probeProblems(base),
    ...replicasProblems(base),
    ...disruptionBudgetProblems(base),
    ...configurationProblems(repoRoot),
    ...dockerfileInstructionProblems(repoRoot),
    ...imageTagProblems(repoRoot),
  ];
  // A kustomization reached from several roots reports once.
  return [...new Set(problems)];
}
