import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { MONITORING_DIR, ROOT } from './support/prometheus';

interface ServiceMonitor {
  kind: string;
  metadata: { name: string };
  spec: {
    selector: { matchLabels: Record<string, string> };
    endpoints: { port: string; path: string }[];
  };
}

interface Service {
  metadata: { name: string; labels: Record<string, string> };
  spec: { ports: { name: string }[] };
}

const monitors = parseAllDocuments(
  readFileSync(join(MONITORING_DIR, 'servicemonitor.yaml'), 'utf8'),
).map((doc) => doc.toJS() as ServiceMonitor);
const kustomization = parse(readFileSync(join(MONITORING_DIR, 'kustomization.yaml'), 'utf8')) as {
  resources: string[];
};

describe('k8s/monitoring ServiceMonitors', () => {
  it.each(['card-issue', 'client-registration'])(
    '%s: one ServiceMonitor selects its Service and scrapes /metrics on a port the Service names',
    (name) => {
      const service = parse(
        readFileSync(join(ROOT, 'k8s', name, 'service.yaml'), 'utf8'),
      ) as Service;
      const selecting = monitors.filter((monitor) =>
        Object.entries(monitor.spec.selector.matchLabels).every(
          ([label, value]) => service.metadata.labels[label] === value,
        ),
      );
      expect(selecting.map((m) => m.metadata.name)).toEqual([name]);
      const ports = service.spec.ports.map((port) => port.name);
      for (const endpoint of selecting[0].spec.endpoints) {
        expect(ports).toContain(endpoint.port);
        expect(endpoint.path).toBe('/metrics');
      }
    },
  );

  it('the kustomization lists them, the rules and the dashboard', () => {
    expect(kustomization.resources).toEqual(['servicemonitor.yaml', 'prometheusrule.yaml']);
    expect(readFileSync(join(MONITORING_DIR, 'kustomization.yaml'), 'utf8')).toContain(
      'dashboard.json',
    );
  });
});
