import {
  kindKey,
  type KubernetesObject,
  unknownFields,
  validateWithModel,
} from './lib/kubernetes-schema';
import { OVERLAYS } from './lib/kustomize';
import { describeWithKubectl, render as renderDir } from './lib/render';
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

    it('every rendered object is valid against the Kubernetes schema, in the namespace', () => {
      expect(objects.length).toBeGreaterThan(10);
      for (const object of objects) {
        // The Prometheus Operator's kinds (k8s/monitoring) are checked by tools/monitoring.
        const core = !String(object.apiVersion).startsWith('monitoring.coreos.com/');
        if (core) expect(() => validateWithModel(object)).not.toThrow();
        if (core) expect([kindKey(object), unknownFields(object)]).toEqual([kindKey(object), []]);
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
