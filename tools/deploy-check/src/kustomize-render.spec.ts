import {
  isBuiltInKind,
  kindKey,
  type KubernetesObject,
  unknownFields,
  validateWithModel,
} from './lib/kubernetes-schema';
import { OVERLAYS } from './lib/kustomize';
import { describeWithKubectl, enableOptionalComponents, render as renderDir } from './lib/render';
import { type ParsedYaml } from './lib/repo';
import { SERVICES } from './lib/rules';

function render(overlay: string): KubernetesObject[] {
  return renderDir(`overlays/${overlay}`);
}

describeWithKubectl('kubectl kustomize renders every overlay', () => {
  describe.each(OVERLAYS)('k8s/overlays/%s', (overlay) => {
    const objects = render(overlay);
    const named = (kind: string, name: string): ParsedYaml =>
      objects.find((o) => o.kind === kind && o.metadata.name === name);

    it('holds only kinds of the built-in API groups: it applies on a cluster without CRDs', () => {
      expect(objects.filter((o) => !isBuiltInKind(o)).map(kindKey)).toEqual([]);
    });

    it('every rendered object is valid against the Kubernetes schema, in the namespace', () => {
      expect(objects.length).toBeGreaterThan(10);
      for (const object of objects) {
        expect(() => validateWithModel(object)).not.toThrow();
        expect([kindKey(object), unknownFields(object)]).toEqual([kindKey(object), []]);
        if (object.kind !== 'Namespace') expect(object.metadata.namespace).toBe('bank-backoffice');
        expect(object.metadata.labels).toMatchObject({
          'app.kubernetes.io/part-of': 'bank-backoffice',
          'app.kubernetes.io/managed-by': 'kustomize',
        });
      }
    });

    it.each(SERVICES)(
      '%s: the pods read a hash-named ConfigMap and Secret that exist',
      (service) => {
        const configs = objects.filter((o) => o.kind === 'ConfigMap').map((o) => o.metadata.name);
        const secrets = objects.filter((o) => o.kind === 'Secret').map((o) => o.metadata.name);
        const config = configs.find((n) => n.startsWith(`${service}-config-`));
        const secret = secrets.find((n) => n.startsWith(`${service}-secrets-`));
        expect(config).toMatch(new RegExp(`^${service}-config-[a-z0-9]{10}$`));
        expect(secret).toMatch(new RegExp(`^${service}-secrets-[a-z0-9]{10}$`));
        for (const kind of ['Deployment', 'Job']) {
          const pod = named(kind, kind === 'Job' ? `${service}-migrate` : service).spec.template;
          expect(pod.spec.containers[0].envFrom).toEqual([
            { configMapRef: { name: config } },
            { secretRef: { name: secret } },
          ]);
          expect(pod.metadata.labels).toMatchObject({
            'app.kubernetes.io/name': service,
            'app.kubernetes.io/instance': service,
            'app.kubernetes.io/version': expect.any(String),
          });
        }
        const deployment = named('Deployment', service);
        expect(deployment.spec).not.toHaveProperty('replicas');
        expect(deployment.spec.template.spec.containers[0].image).toMatch(
          new RegExp(`^bank-backoffice/${service}:\\d+\\.\\d+\\.\\d+$`),
        );
        expect(named('NetworkPolicy', service)).toBeDefined();
      },
    );

    it('a changed configuration value changes the ConfigMap name (the pods roll)', () => {
      const name = objects.find(
        (o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('card-issue-config-'),
      )!.metadata.name;
      const base = render('dev' === overlay ? 'prod' : 'dev').find(
        (o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('card-issue-config-'),
      )!.metadata.name;
      // dev logs at debug, prod at info: different data, different names.
      expect(name).not.toBe(base);
    });
  });
});

describeWithKubectl('k8s/overlays/prod with its optional components enabled', () => {
  const key = (o: KubernetesObject) => `${kindKey(o)} ${o.metadata.name}`;
  let plain: KubernetesObject[];
  let objects: KubernetesObject[];
  let added: KubernetesObject[];
  beforeAll(() => {
    plain = renderDir('overlays/prod');
    objects = renderDir('overlays/prod', enableOptionalComponents);
    added = objects.filter((o) => !plain.some((p) => key(p) === key(o)));
  });

  it('adds objects and changes none of the default ones', () => {
    for (const object of plain) expect(objects.find((o) => key(o) === key(object))).toEqual(object);
    expect(added.length).toBeGreaterThan(0);
    for (const object of added) {
      // The Prometheus Operator's kinds are checked by tools/monitoring.
      if (isBuiltInKind(object)) {
        expect(() => validateWithModel(object)).not.toThrow();
        expect([kindKey(object), unknownFields(object)]).toEqual([kindKey(object), []]);
      }
      expect(object.metadata.namespace).toBe('bank-backoffice');
      expect(object.metadata.labels).toMatchObject({
        'app.kubernetes.io/part-of': 'bank-backoffice',
        'app.kubernetes.io/managed-by': 'kustomize',
      });
    }
  });

  it('ingress: the example Ingress (ingress.spec.ts checks its routes and TLS)', () => {
    expect(added.filter((o) => o.apiVersion === 'networking.k8s.io/v1').map(key)).toEqual([
      'networking.k8s.io/v1/Ingress bank-backoffice',
    ]);
  });

  it('monitoring: a ServiceMonitor per service, the rules and the dashboard', () => {
    const monitoring = added.map(key).filter((k) => !k.startsWith('networking.k8s.io/'));
    expect(monitoring.sort()).toEqual([
      'monitoring.coreos.com/v1/PrometheusRule bank-backoffice',
      'monitoring.coreos.com/v1/ServiceMonitor card-issue',
      'monitoring.coreos.com/v1/ServiceMonitor client-registration',
      expect.stringMatching(/^v1\/ConfigMap bank-backoffice-dashboard-[a-z0-9]{10}$/),
    ]);
    // Only what the Prometheus Operator's CRDs define needs more than a plain cluster.
    expect(new Set(added.filter((o) => !isBuiltInKind(o)).map((o) => o.apiVersion))).toEqual(
      new Set(['monitoring.coreos.com/v1']),
    );
  });
});
