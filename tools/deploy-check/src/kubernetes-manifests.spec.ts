import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import {
  kindKey,
  type KubernetesObject,
  supportedKinds,
  unknownFields,
  validateWithModel,
} from './lib/kubernetes-schema';
import {
  baseDir,
  componentDir,
  generated,
  k8sRoot,
  kustomizationIn,
  kustomizationTree,
  type Manifest,
  manifests,
  missingResources,
  OPTIONAL_COMPONENTS,
  OVERLAYS,
  overlayDir,
  parseEnvFile,
} from './lib/kustomize';
import { clone, type ParsedYaml, readText, readYaml, repoPath } from './lib/repo';
import { SERVICES } from './lib/rules';

const PORTS: Record<(typeof SERVICES)[number], number> = {
  'card-issue': 3000,
  'client-registration': 3001,
};
/**
 * Graceful shutdown on SIGTERM: requests in flight get SHUTDOWN_TIMEOUT_MS (its default when the
 * ConfigMap does not set it), then the rest (the scheduler tick, outbox delivery, the database)
 * at most SHUTDOWN_REST_SECONDS before the process exits by itself (libs/shared/nest run-service.ts).
 */
const DEFAULT_SHUTDOWN_TIMEOUT_MS = 25_000;
const SHUTDOWN_REST_SECONDS = 5;
const all = manifests(baseDir());

function ofKind(kind: string, dir?: string): Manifest[] {
  return all.filter((m) => m.object.kind === kind && (dir === undefined || m.dir === dir));
}

/** The ConfigMap data each service gets in the base (its configMapGenerator, unhashed name). */
const baseConfig = generated(baseDir(), 'configMapGenerator');

function single(kind: string, dir: string): KubernetesObject {
  const found = ofKind(kind, dir);
  expect(found.map((m) => m.file)).toHaveLength(1);
  return found[0].object;
}

function matches(selector: Record<string, string>, labels: Record<string, string> = {}) {
  return Object.entries(selector).every(([key, value]) => labels[key] === value);
}

function imageName(image: string): string {
  return image.replace(/@sha256:.*$/, '').replace(/:[^/:]+$/, '');
}

function yamlFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name));
}

describe('Kubernetes manifests: schemas', () => {
  it('finds the manifests of both services through the kustomizations', () => {
    expect(all.length).toBeGreaterThanOrEqual(1 + SERVICES.length * 6);
    for (const service of SERVICES) {
      const kinds = all.filter((m) => m.dir === `k8s/${service}`).map((m) => kindKey(m.object));
      expect(kinds.sort()).toEqual(
        [
          'apps/v1/Deployment',
          'autoscaling/v2/HorizontalPodAutoscaler',
          'batch/v1/Job',
          'networking.k8s.io/v1/NetworkPolicy',
          'policy/v1/PodDisruptionBudget',
          'v1/Service',
        ].sort(),
      );
    }
  });

  // The Prometheus Operator's resources (k8s/monitoring) are not in the Kubernetes schema;
  // tools/monitoring checks them (promtool, a real Prometheus, the ServiceMonitors' selectors).
  const core = all.filter((m) => !m.object.apiVersion?.startsWith('monitoring.coreos.com/'));
  it.each(core.map((m) => [`${m.file} (${m.object.kind} ${m.object.metadata?.name})`, m]))(
    '%s is valid against the Kubernetes schema and has no unknown field',
    (_, manifest) => {
      const { object } = manifest;
      expect(supportedKinds()).toContain(kindKey(object));
      expect(() => validateWithModel(object)).not.toThrow();
      expect(unknownFields(object)).toEqual([]);
    },
  );

  describe('a spoiled manifest fails', () => {
    const deployment = (): ParsedYaml => clone(single('Deployment', 'k8s/card-issue'));

    it('a misspelled field (replcas, readinesProbe) is reported by path', () => {
      const spoiled = deployment();
      spoiled.spec.replcas = 2;
      const container = spoiled.spec.template.spec.containers[0];
      container.readinesProbe = container.readinessProbe;
      delete container.readinessProbe;
      expect(unknownFields(spoiled)).toEqual(
        expect.arrayContaining([
          '.spec.replcas',
          '.spec.template.spec.containers[0].readinesProbe',
        ]),
      );
    });

    it('a misspelled field deep in a list and in metadata is reported', () => {
      const spoiled = deployment();
      spoiled.metadata.lables = { a: 'b' };
      spoiled.spec.template.spec.containers[0].ports[0].containerport = 1;
      spoiled.spec.template.spec.volumes[0].emptyDir.sizelimit = '1Mi';
      expect(unknownFields(spoiled).sort()).toEqual(
        [
          '.metadata.lables',
          '.spec.template.spec.containers[0].ports[0].containerport',
          '.spec.template.spec.volumes[0].emptyDir.sizelimit',
        ].sort(),
      );
    });

    it('free-form maps (labels, resources, ConfigMap data) accept any key', () => {
      const spoiled = deployment();
      spoiled.metadata.labels['example.com/anything'] = 'x';
      spoiled.spec.template.spec.containers[0].resources.limits['example.com/gpu'] = '1';
      expect(unknownFields(spoiled)).toEqual([]);
    });

    it.each([
      [
        'a wrong type',
        (d: ParsedYaml) => (d.spec.revisionHistoryLimit = 'two'),
        /revisionHistoryLimit must be integer/,
      ],
      [
        'a missing required field',
        (d: ParsedYaml) => delete d.spec.selector,
        /required property selector/,
      ],
      [
        'a value outside an enum',
        (d: ParsedYaml) => (d.spec.template.spec.containers[0].imagePullPolicy = 'Sometimes'),
        /allowed values/,
      ],
      [
        'a missing container name',
        (d: ParsedYaml) => delete d.spec.template.spec.containers[0].name,
        /required property name/,
      ],
    ])('%s fails the schema validation', (_, spoil, message) => {
      const spoiled = deployment();
      spoil(spoiled);
      expect(() => validateWithModel(spoiled)).toThrow(message);
    });

    it('a misspelled field in another kind (Service, HPA) is reported too', () => {
      const service = clone(single('Service', 'k8s/card-issue'));
      service.spec.ports[0].targetport = 'http';
      expect(unknownFields(service)).toEqual(['.spec.ports[0].targetport']);
      const hpa = clone(single('HorizontalPodAutoscaler', 'k8s/card-issue'));
      hpa.spec.minReplica = 1;
      expect(unknownFields(hpa)).toEqual(['.spec.minReplica']);
    });
  });
});

describe('Kubernetes manifests: kustomizations', () => {
  const overlayTrees = OVERLAYS.map((overlay) => kustomizationTree(overlayDir(overlay)));
  const tree = [...new Map(overlayTrees.flat().map((k) => [k.file, k])).values()];

  it.each(tree.map((k) => [path.relative(repoPath(), k.file), k]))(
    '%s references only existing files',
    (_, k) => {
      const { kustomization } = k;
      expect(kustomization.apiVersion).toBe('kustomize.config.k8s.io/v1beta1');
      expect(kustomization.kind).toBe('Kustomization');
      expect(kustomization.resources?.length).toBeGreaterThan(0);
      expect(missingResources(k)).toEqual([]);
    },
  );

  it('the base ties both services and the namespace together; each overlay builds on it', () => {
    const base = kustomizationIn(baseDir()).kustomization;
    expect(base.resources).toEqual(expect.arrayContaining(SERVICES.map((s) => `../${s}`)));
    const namespace = single('Namespace', 'k8s/base');
    for (const k of tree) expect(k.kustomization.namespace).toBe(namespace.metadata.name);
    // Nothing but the base by default: the optional components stay off (they may need CRDs).
    for (const overlay of OVERLAYS) {
      const { kustomization } = kustomizationIn(overlayDir(overlay));
      expect(kustomization.resources).toEqual(['../../base']);
      expect(kustomization.components).toBeUndefined();
    }
  });

  it.each(OPTIONAL_COMPONENTS)(
    'k8s/%s is a kustomize Component that prod lists, commented out, with what it needs',
    (component) => {
      const k = kustomizationIn(componentDir(component));
      expect(k.kustomization.apiVersion).toBe('kustomize.config.k8s.io/v1alpha1');
      expect(k.kustomization.kind).toBe('Component');
      expect(missingResources(k)).toEqual([]);
      expect(k.kustomization.namespace).toBe('bank-backoffice');
      const prod = readText(path.join(overlayDir('prod'), 'kustomization.yaml'));
      // The block enableOptionalComponents (kustomize-render.spec.ts) uncomments and renders.
      expect(prod).toMatch(
        new RegExp(`^# components:\\n(# {3}- .*\\n)*# {3}- \\.\\./\\.\\./${component}\\n`, 'm'),
      );
      expect(prod).toMatch(new RegExp(`^# - \\.\\./\\.\\./${component}: \\S`, 'm'));
    },
  );

  it('the namespace enforces the restricted Pod Security Standard', () => {
    const ns = readYaml<KubernetesObject>(repoPath('k8s', 'base', 'namespace.yaml'));
    expect(ns.metadata.labels?.['pod-security.kubernetes.io/enforce']).toBe('restricted');
  });

  it('every YAML file under k8s/ is listed by a kustomization', () => {
    // Files an optional component lists (k8s/monitoring) count too.
    const components = OPTIONAL_COMPONENTS.map((c) => kustomizationIn(componentDir(c)));
    const resources = [...tree, ...components].flatMap((k) =>
      (k.kustomization.resources ?? []).map((r: string) => path.join(path.dirname(k.file), r)),
    );
    const listed = new Set([
      ...all.map((m) => repoPath(m.file)),
      ...[...tree, ...components].map((k) => k.file),
      ...resources,
    ]);
    expect(yamlFilesUnder(k8sRoot()).filter((f) => !listed.has(f))).toEqual([]);
  });

  it('the base holds no Secret: each overlay generates every Secret the pods read', () => {
    expect(ofKind('Secret')).toEqual([]);
    for (const k of kustomizationTree(baseDir()))
      expect(k.kustomization.secretGenerator).toBeUndefined();
    for (const overlay of OVERLAYS) {
      const secrets = generated(overlayDir(overlay), 'secretGenerator');
      for (const service of SERVICES) {
        const keys = Object.keys(secrets.get(`${service}-secrets`) ?? {});
        expect(keys).toContain('DATABASE_URL');
        if (service === 'card-issue') expect(keys).toContain('X_SECRET');
      }
    }
  });

  it('prod generates its Secrets from untracked env files whose committed examples hold placeholders', () => {
    const { kustomization, dir } = kustomizationIn(overlayDir('prod'));
    for (const entry of kustomization.secretGenerator ?? []) {
      expect(entry.literals).toBeUndefined();
      expect(entry.envs?.length).toBeGreaterThan(0);
      for (const env of entry.envs ?? []) {
        const file = path.join(dir, env);
        // git ignores the real file, so a filled-in one is never committed.
        expect(
          execFileSync('git', ['check-ignore', '--no-index', '-q', file], {
            cwd: repoPath(),
          }).toString(),
        ).toBe('');
        const example = parseEnvFile(readText(`${file}.example`));
        for (const [key, value] of Object.entries(example))
          expect([key, value]).toEqual([key, expect.stringContaining('REPLACE_ME')]);
      }
    }
  });

  it('the ConfigMaps and Secrets are generated, so their names carry a content hash', () => {
    for (const { kustomization } of tree) {
      for (const entry of [
        ...(kustomization.configMapGenerator ?? []),
        ...(kustomization.secretGenerator ?? []),
      ])
        expect(entry).not.toHaveProperty('options.disableNameSuffixHash', true);
    }
    expect(ofKind('ConfigMap')).toEqual([]);
  });

  it('a missing resource is reported', () => {
    const k = kustomizationIn(repoPath('k8s', 'card-issue'));
    const spoiled = { ...k, kustomization: { ...k.kustomization, resources: ['nope.yaml'] } };
    expect(missingResources(spoiled)).toEqual(['nope.yaml']);
  });

  it.each(SERVICES)(
    '%s: the recommended app.kubernetes.io labels; the version label is the image tag',
    (service) => {
      const { kustomization } = kustomizationIn(repoPath('k8s', service));
      const labels = (kustomization.labels as ParsedYaml[]).flatMap((l) => Object.entries(l.pairs));
      const base = (kustomizationIn(baseDir()).kustomization.labels as ParsedYaml[]).flatMap((l) =>
        Object.entries(l.pairs),
      );
      expect(Object.fromEntries([...labels, ...base])).toEqual({
        'app.kubernetes.io/instance': service,
        'app.kubernetes.io/version': kustomization.images?.[0].newTag,
        'app.kubernetes.io/part-of': 'bank-backoffice',
        'app.kubernetes.io/managed-by': 'kustomize',
      });
      for (const m of all.filter((o) => o.dir === `k8s/${service}`)) {
        expect(m.object.metadata.labels?.['app.kubernetes.io/name']).toBe(service);
        expect(m.object.metadata.labels?.['app.kubernetes.io/component'] ?? 'none').toMatch(
          /^(api|migration|none)$/,
        );
      }
    },
  );

  it.each(SERVICES)(
    '%s: the kustomization images entry names the image its pods run',
    (service) => {
      const dir = `k8s/${service}`;
      const { images = [] } = kustomizationIn(repoPath(dir)).kustomization;
      const names = images.map((i) => i.name);
      const podImages = [single('Deployment', dir), single('Job', dir)].flatMap((o) =>
        o.spec.template.spec.containers.map((c: ParsedYaml) => imageName(c.image)),
      );
      expect(new Set(podImages)).toEqual(new Set([`bank-backoffice/${service}`]));
      expect(names).toEqual([`bank-backoffice/${service}`]);
      expect(images[0].newTag ?? images[0].digest).toBeTruthy();
    },
  );
});

describe.each(SERVICES)('Kubernetes manifests: %s', (service) => {
  const dir = `k8s/${service}`;
  const deployment = single('Deployment', dir);
  const podSpec = deployment.spec.template.spec;
  const podLabels: Record<string, string> = deployment.spec.template.metadata.labels;
  const [container] = podSpec.containers;
  const job = single('Job', dir);
  const configMap = {
    metadata: { name: `${service}-config` },
    data: baseConfig.get(`${service}-config`)!,
  };
  const secret = { metadata: { name: `${service}-secrets` } };

  it('the Deployment leaves its replica count to the autoscaler; its selector matches its pod labels', () => {
    expect(deployment.metadata.name).toBe(service);
    expect(deployment.spec).not.toHaveProperty('replicas');
    expect(podSpec.containers).toHaveLength(1);
    expect(matches(deployment.spec.selector.matchLabels, podLabels)).toBe(true);
    expect(deployment.spec.strategy.rollingUpdate.maxUnavailable).toBe(0);
  });

  it('the container listens on the service port; liveness and startup on /api/health/live, readiness on /api/health/ready', () => {
    expect(container.ports).toEqual([
      expect.objectContaining({ name: 'http', containerPort: PORTS[service] }),
    ]);
    expect(container.startupProbe?.httpGet).toEqual({ path: '/api/health/live', port: 'http' });
    expect(container.livenessProbe?.httpGet).toEqual({ path: '/api/health/live', port: 'http' });
    expect(container.readinessProbe?.httpGet).toEqual({ path: '/api/health/ready', port: 'http' });
    // A pod leaves the endpoints (readiness) before the kubelet would restart it (liveness).
    const { livenessProbe: live, readinessProbe: ready } = container;
    expect(live.periodSeconds * live.failureThreshold).toBeGreaterThan(
      ready.periodSeconds * ready.failureThreshold,
    );
  });

  it('the container has CPU and memory requests and limits', () => {
    for (const bound of ['requests', 'limits']) {
      expect(Object.keys(container.resources[bound]).sort()).toEqual(['cpu', 'memory']);
    }
  });

  it.each([
    ['Deployment', deployment],
    ['Job', job],
  ])('the %s runs as non-root with a read-only root file system and a writable /tmp', (_, o) => {
    const spec = o.spec.template.spec;
    expect(spec.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(spec.securityContext.runAsUser).toBeGreaterThan(0);
    expect(spec.automountServiceAccountToken).toBe(false);
    for (const c of spec.containers) {
      expect(c.securityContext).toMatchObject({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        runAsNonRoot: true,
        capabilities: { drop: ['ALL'] },
      });
      const tmp = c.volumeMounts.find((m: ParsedYaml) => m.mountPath === '/tmp');
      expect(spec.volumes.find((v: ParsedYaml) => v.name === tmp?.name)?.emptyDir).toBeDefined();
      expect(c.envFrom).toEqual([
        { configMapRef: { name: configMap.metadata.name } },
        { secretRef: { name: secret.metadata.name } },
      ]);
    }
  });

  it('the grace period covers the preStop sleep and the graceful shutdown', () => {
    const command: string[] = container.lifecycle.preStop.exec.command;
    expect(command[0]).toBe('sleep');
    const sleep = Number(command[1]);
    expect(sleep).toBeGreaterThan(0);
    const shutdownMs = Number(configMap.data.SHUTDOWN_TIMEOUT_MS ?? DEFAULT_SHUTDOWN_TIMEOUT_MS);
    expect(shutdownMs).toBeGreaterThan(0);
    // The request timeout ends a slow client before the shutdown deadline would have to.
    expect(Number(configMap.data.HTTP_REQUEST_TIMEOUT_MS ?? 15_000)).toBeLessThan(shutdownMs);
    expect(podSpec.terminationGracePeriodSeconds).toBeGreaterThan(
      sleep + shutdownMs / 1000 + SHUTDOWN_REST_SECONDS,
    );
  });

  it('the Deployment leaves migrations to the Job', () => {
    expect(container.env).toContainEqual({ name: 'DB_MIGRATIONS_RUN', value: 'false' });
    const [migrate] = job.spec.template.spec.containers;
    expect(migrate.command).toEqual(['node', 'main.js', 'migrate']);
    expect(migrate.image).toBe(container.image);
    expect(['Never', 'OnFailure']).toContain(job.spec.template.spec.restartPolicy);
    expect(job.spec.backoffLimit).toBeGreaterThan(0);
  });

  it('the ConfigMap holds no secret, and no key of the Secrets', () => {
    const secretKeys = OVERLAYS.flatMap((overlay) =>
      Object.keys(
        generated(overlayDir(overlay), 'secretGenerator').get(secret.metadata.name) ?? {},
      ),
    );
    for (const key of Object.keys(configMap.data)) {
      expect(key).not.toMatch(/SECRET|PASSWORD|TOKEN|DATABASE_URL/);
      expect(secretKeys).not.toContain(key);
    }
    expect(configMap.data).toMatchObject({
      NODE_ENV: 'production',
      PORT: String(PORTS[service]),
      DOCS_ENABLED: 'false',
      // Production refuses to start without AUTH_MODE; the manifests ship the bearer JWT on.
      AUTH_MODE: 'jwt',
    });
  });

  it('a NetworkPolicy admits ingress to the http port only and egress to DNS and the database', () => {
    const policy = single('NetworkPolicy', dir);
    expect(matches(policy.spec.podSelector.matchLabels, podLabels)).toBe(true);
    expect(matches(policy.spec.podSelector.matchLabels, job.spec.template.metadata.labels)).toBe(
      true,
    );
    expect(policy.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    for (const rule of policy.spec.ingress) {
      expect(rule.from.length).toBeGreaterThan(0);
      expect(rule.ports).toEqual([{ port: 'http', protocol: 'TCP' }]);
    }
    const egressPorts = policy.spec.egress.flatMap((rule: ParsedYaml) =>
      (rule.ports ?? []).map((p: ParsedYaml) => p.port),
    );
    expect(egressPorts).toEqual(expect.arrayContaining([53, 5432, 6432]));
    for (const rule of policy.spec.egress) expect(rule.to?.length).toBeGreaterThan(0);
  });

  it('the Service selects the Deployment pods and not the migration pod', () => {
    const svc = single('Service', dir);
    expect(svc.metadata.name).toBe(service);
    expect(matches(svc.spec.selector, podLabels)).toBe(true);
    expect(matches(svc.spec.selector, job.spec.template.metadata.labels)).toBe(false);
    const portNames = container.ports.map((p: ParsedYaml) => p.name);
    for (const port of svc.spec.ports) expect(portNames).toContain(port.targetPort);
  });

  it('the HorizontalPodAutoscaler scales this Deployment from 2 replicas', () => {
    const hpa = single('HorizontalPodAutoscaler', dir);
    expect(hpa.spec.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: deployment.metadata.name,
    });
    expect(hpa.spec.minReplicas).toBe(2);
    expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);
  });

  it('the PodDisruptionBudget selects this Deployment pods and lets one go at a time', () => {
    const pdb = single('PodDisruptionBudget', dir);
    expect(matches(pdb.spec.selector.matchLabels, podLabels)).toBe(true);
    expect(matches(pdb.spec.selector.matchLabels, job.spec.template.metadata.labels)).toBe(false);
    expect(pdb.spec).toEqual(expect.objectContaining({ maxUnavailable: 1 }));
    expect(pdb.spec).not.toHaveProperty('minAvailable');
  });
});
