import { readFileSync } from 'node:fs';
import { type KubernetesObject, unknownFields, validateWithModel } from './lib/kubernetes-schema';
import {
  admitsPort,
  peerAdmitsPod,
  peersOf,
  type PodRef,
  rulesFor,
  selects,
} from './lib/network-policy';
import { describeWithKubectl, enableOptionalComponents, find, render } from './lib/render';
import { type ParsedYaml, repoPath } from './lib/repo';
import { SERVICES } from './lib/rules';

/**
 * The controller the example's ingressClassName names: ingress-nginx as its install manifest
 * and Helm chart deploy it. IngressClass "nginx"; the controller pods carry
 * app.kubernetes.io/name: ingress-nginx and app.kubernetes.io/component: controller in the
 * namespace ingress-nginx (which the API server labels kubernetes.io/metadata.name). The same
 * namespace runs the admission webhook's Jobs, which are not the controller.
 */
const INGRESS_NGINX = {
  ingressClassName: 'nginx',
  controller: {
    namespace: 'ingress-nginx',
    namespaceLabels: {
      'kubernetes.io/metadata.name': 'ingress-nginx',
      'app.kubernetes.io/name': 'ingress-nginx',
      'app.kubernetes.io/instance': 'ingress-nginx',
    },
    labels: {
      'app.kubernetes.io/name': 'ingress-nginx',
      'app.kubernetes.io/instance': 'ingress-nginx',
      'app.kubernetes.io/component': 'controller',
    },
  } satisfies PodRef,
};

/** The paths each service serves, from its OpenAPI document (generated from its controllers). */
function openApiPaths(service: string): string[] {
  const document = JSON.parse(readFileSync(repoPath('openapi', `${service}.json`), 'utf8')) as {
    paths: Record<string, unknown>;
  };
  return Object.keys(document.paths);
}

/** An Ingress path of pathType Prefix matches a request path element by element. */
function prefixMatches(prefix: string, requestPath: string): boolean {
  const want = prefix.split('/').filter(Boolean);
  const have = requestPath.split('/').filter(Boolean);
  return want.length <= have.length && want.every((element, i) => have[i] === element);
}

interface Route {
  host: string;
  path: string;
  pathType: string;
  service: string;
  port: ParsedYaml;
}

function routesOf(ingress: ParsedYaml): Route[] {
  return ingress.spec.rules.flatMap((rule: ParsedYaml) =>
    rule.http.paths.map((p: ParsedYaml) => ({
      host: rule.host,
      path: p.path,
      pathType: p.pathType,
      service: p.backend.service.name,
      port: p.backend.service.port,
    })),
  );
}

/** The Service an Ingress sends a request to: the longest matching Prefix path, as the API says. */
function routedTo(routes: Route[], requestPath: string): string | undefined {
  const matching = routes
    .filter((r) => r.pathType === 'Prefix' && prefixMatches(r.path, requestPath))
    .sort((a, b) => b.path.length - a.path.length);
  return matching[0]?.service;
}

describeWithKubectl('k8s/ingress: the example Ingress with TLS (prod, components enabled)', () => {
  let objects: KubernetesObject[];
  let ingress: ParsedYaml;
  let routes: Route[];
  beforeAll(() => {
    objects = render('overlays/prod', enableOptionalComponents);
    ingress = find(objects, 'Ingress', 'bank-backoffice');
    routes = routesOf(ingress);
  });

  it('is valid against the Kubernetes schema, with no unknown field', () => {
    expect(ingress).toBeDefined();
    expect(() => validateWithModel(ingress)).not.toThrow();
    expect(unknownFields(ingress)).toEqual([]);
    expect(ingress.metadata.namespace).toBe('bank-backoffice');
  });

  it('names the ingress-nginx class and serves every host over TLS from a Secret', () => {
    expect(ingress.spec.ingressClassName).toBe(INGRESS_NGINX.ingressClassName);
    const tlsHosts = ingress.spec.tls.flatMap((t: ParsedYaml) => {
      expect(t.secretName).toMatch(/\S/);
      return t.hosts;
    });
    for (const route of routes) expect(tlsHosts).toContain(route.host);
  });

  it.each(SERVICES)('routes every API path of %s to it, and nothing else of it', (service) => {
    const paths = openApiPaths(service);
    const api = paths.filter((p) => !p.startsWith('/api/health'));
    expect(api.length).toBeGreaterThan(0);
    for (const p of api) expect([p, routedTo(routes, p)]).toEqual([p, service]);
    // The probes' endpoints, the metrics and the docs stay inside the cluster.
    for (const p of [...paths.filter((x) => x.startsWith('/api/health')), '/metrics', '/docs'])
      expect([p, routedTo(routes, p)]).toEqual([p, undefined]);
  });

  it('routes no card-issue reference service', () => {
    for (const prefix of ['user-api', 'branch-api', 'operation-api', 'operation-api-v2'])
      for (const p of openApiPaths(prefix))
        expect([p, routedTo(routes, `/${prefix}${p}`)]).toEqual([p, undefined]);
  });

  it.each(SERVICES)(
    '%s: the backend port is a port of its Service, whose target is the API pods\u2019 http port, which the NetworkPolicy opens to the controller',
    (service) => {
      const backends = routes.filter((r) => r.service === service);
      expect(backends.length).toBeGreaterThan(0);
      const svc = find(objects, 'Service', service);
      const deployment = find(objects, 'Deployment', service);
      const pod = deployment.spec.template;
      expect(selects({ matchLabels: svc.spec.selector }, pod.metadata.labels)).toBe(true);
      const containerPorts: Record<string, number> = Object.fromEntries(
        pod.spec.containers.flatMap((c: ParsedYaml) =>
          (c.ports ?? []).map((p: ParsedYaml) => [p.name, p.containerPort]),
        ),
      );
      const rules = rulesFor(objects, 'bank-backoffice', pod.metadata.labels, 'Ingress');
      expect(rules).toBeDefined();
      for (const { port } of backends) {
        const servicePort = svc.spec.ports.find((p: ParsedYaml) =>
          port.name !== undefined ? p.name === port.name : p.port === port.number,
        );
        expect(servicePort).toBeDefined();
        const target: number =
          typeof servicePort.targetPort === 'number'
            ? servicePort.targetPort
            : containerPorts[servicePort.targetPort];
        expect(target).toBe(
          Number(find(objects, 'ConfigMap', new RegExp(`^${service}-config-`)).data.PORT),
        );
        const admitting = (from: PodRef) =>
          rules!.some(
            (rule: ParsedYaml) =>
              admitsPort(rule, target, 'TCP', containerPorts) &&
              (peersOf(rule, 'Ingress')?.some((peer: ParsedYaml) =>
                peerAdmitsPod(peer, from, 'bank-backoffice'),
              ) ??
                true),
          );
        expect(admitting(INGRESS_NGINX.controller)).toBe(true);
        // The same labels in another namespace, or another pod of the controller's namespace
        // (its admission webhook Jobs), are not the controller.
        expect(
          admitting({
            ...INGRESS_NGINX.controller,
            namespace: 'default',
            namespaceLabels: { 'kubernetes.io/metadata.name': 'default' },
          }),
        ).toBe(false);
        expect(
          admitting({
            ...INGRESS_NGINX.controller,
            labels: {
              ...INGRESS_NGINX.controller.labels,
              'app.kubernetes.io/component': 'admission-webhook',
            },
          }),
        ).toBe(false);
      }
    },
  );
});
