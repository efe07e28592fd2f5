/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument --
   rendered manifests are walked as parsed YAML (ParsedYaml, repo.ts). */
import { isIP } from 'node:net';
import { type BaseEnvironment, validateEnvironment } from '@bank/shared/config';
import { tracingOffReason } from '@bank/shared/tracing';
import { parseCidrList } from '@bank/shared/webhooks';
import type { KubernetesObject } from './kubernetes-schema';
import {
  admitsPort,
  ALL_IPV4,
  cidrInterval,
  formatInterval,
  type Interval,
  ipBlockAddresses,
  ipv4ToNumber,
  peersOf,
  type Protocol,
  rulesFor,
  subtract,
  union,
} from './network-policy';
import type { ParsedYaml } from './repo';
import { ENVIRONMENTS, type ServiceName, SERVICES } from './rules';

/**
 * The egress rule: every outbound dependency a service's configuration gives it (the rendered
 * ConfigMap, Secret and env of its Deployment) must be allowed by the NetworkPolicies that
 * select its pods, or the pods cannot reach it once they are isolated.
 */

/**
 * IPv4 ranges that are not the public internet: unspecified, private, CGNAT, loopback,
 * link-local (with the cloud metadata address). The webhook sender refuses exactly these
 * (libs/shared/webhooks, WebhookTargetPolicy; egress.spec.ts pins that), so "public" is every
 * address it may deliver to.
 */
export const NON_PUBLIC_IPV4 = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.168.0.0/16',
] as const;

export const PUBLIC_IPV4: Interval[] = subtract(
  [ALL_IPV4],
  NON_PUBLIC_IPV4.map((cidr) => cidrInterval(cidr)!),
);

/** Where a dependency is, as a NetworkPolicy can name it. */
export type Reach =
  /** A Service of the cluster (a name without dots, or under .svc): a pod-selecting peer. */
  | { kind: 'cluster'; host: string }
  /** A DNS name outside the cluster (or an IPv6 literal): an ipBlock peer must allow its port. */
  | { kind: 'outside'; host: string }
  /** Known IPv4 addresses (a literal host, a CIDR, the public internet): ipBlocks covering them. */
  | { kind: 'addresses'; what: string; addresses: Interval[] }
  /** Cluster DNS, wherever it runs (kube-dns pods, a node-local cache): any peer. */
  | { kind: 'dns' };

export interface Dependency {
  /** The setting it comes from, e.g. `DATABASE_URL`. */
  source: string;
  reach: Reach;
  port: number;
  protocol: Protocol;
}

const CLUSTER_SUFFIXES = ['.svc', '.svc.cluster.local', '.cluster.local'];
const DEFAULT_PORTS: Record<string, number> = {
  'http:': 80,
  'https:': 443,
  'postgres:': 5432,
  'postgresql:': 5432,
};

function isLoopback(host: string): boolean {
  return (
    host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\./.test(host)
  );
}

/** The dependency a URL setting names; undefined for the pod's own loopback. */
function urlDependency(source: string, value: string): Dependency | undefined {
  const url = new URL(value);
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (isLoopback(host)) return undefined;
  const port = url.port ? Number(url.port) : DEFAULT_PORTS[url.protocol];
  if (port === undefined) throw new Error(`${source}: no port known for ${url.protocol}`);
  const reach: Reach =
    isIP(host) === 4
      ? { kind: 'addresses', what: host, addresses: [[ipv4ToNumber(host), ipv4ToNumber(host)]] }
      : isIP(host) === 0 && (!host.includes('.') || CLUSTER_SUFFIXES.some((s) => host.endsWith(s)))
        ? { kind: 'cluster', host }
        : { kind: 'outside', host };
  return { source, reach, port, protocol: 'TCP' };
}

/**
 * What a service connects to, derived from its environment as the service itself reads it
 * (validated by its configuration class, defaults included): the database (DATABASE_URL,
 * DATABASE_DIRECT_URL), the OTLP collector when tracing is on, the downstream services
 * (USER_API_URL, ...; unset means the pod's own loopback), the issuer's JWKS with
 * AUTH_MODE=jwt, webhook receivers when deliveries are enabled (any public address on 443,
 * and 80 outside production; plus WEBHOOK_ALLOWED_TARGET_CIDRS), and DNS for every name.
 */
export function outboundDependencies(
  service: ServiceName,
  raw: Record<string, string>,
): Dependency[] {
  const env = validateEnvironment(ENVIRONMENTS[service], raw) as BaseEnvironment &
    Record<string, unknown>;
  const urls: [string, unknown][] = [
    ['DATABASE_URL', env.DATABASE_URL],
    ['DATABASE_DIRECT_URL', env.DATABASE_DIRECT_URL],
    ['USER_API_URL', env.USER_API_URL],
    ['BRANCH_API_URL', env.BRANCH_API_URL],
    ['OPERATION_API_URL', env.OPERATION_API_URL],
  ];
  if (env.AUTH_MODE === 'jwt') urls.push(['AUTH_JWKS_URL', env.AUTH_JWKS_URL]);
  if (tracingOffReason(raw) === null) {
    const traces = raw.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
      ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
      : 'OTEL_EXPORTER_OTLP_ENDPOINT';
    urls.push([traces, raw[traces]]);
  }
  const out: Dependency[] = [];
  for (const [source, value] of urls) {
    if (typeof value !== 'string' || value === '') continue;
    const dependency = urlDependency(source, value);
    if (dependency) out.push(dependency);
  }
  if (env.WEBHOOKS_ENABLED === true) {
    const ports = env.NODE_ENV === 'production' ? [443] : [443, 80];
    for (const port of ports) {
      out.push({
        source: 'WEBHOOKS_ENABLED',
        reach: { kind: 'addresses', what: 'the public internet', addresses: PUBLIC_IPV4 },
        port,
        protocol: 'TCP',
      });
      for (const cidr of parseCidrList(env.WEBHOOK_ALLOWED_TARGET_CIDRS as string | undefined)) {
        const range = cidrInterval(cidr);
        const loopback = subtract([range ?? [0, 0]], [cidrInterval('127.0.0.0/8')!]).length === 0;
        if (range && !loopback)
          out.push({
            source: 'WEBHOOK_ALLOWED_TARGET_CIDRS',
            reach: { kind: 'addresses', what: cidr, addresses: [range] },
            port,
            protocol: 'TCP',
          });
      }
    }
  }
  if (out.some((d) => d.reach.kind === 'cluster' || d.reach.kind === 'outside')) {
    out.push({ source: 'host names', reach: { kind: 'dns' }, port: 53, protocol: 'UDP' });
  }
  return out;
}

/** The environment a container starts with: its envFrom ConfigMaps and Secrets, then env. */
export function containerEnvironment(
  objects: KubernetesObject[],
  namespace: string,
  container: ParsedYaml,
): Record<string, string> {
  const named = (kind: string, name: string): ParsedYaml =>
    objects.find(
      (o) =>
        o.kind === kind &&
        o.metadata.name === name &&
        (o.metadata.namespace ?? 'default') === namespace,
    );
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    const prefix: string = source.prefix ?? '';
    if (source.configMapRef) {
      const map = named('ConfigMap', source.configMapRef.name);
      if (!map) throw new Error(`ConfigMap ${source.configMapRef.name} is not rendered`);
      for (const [key, value] of Object.entries<string>(map.data ?? {})) env[prefix + key] = value;
    }
    if (source.secretRef) {
      const secret = named('Secret', source.secretRef.name);
      if (!secret) throw new Error(`Secret ${source.secretRef.name} is not rendered`);
      for (const [key, value] of Object.entries<string>(secret.data ?? {}))
        env[prefix + key] = Buffer.from(value, 'base64').toString('utf8');
      for (const [key, value] of Object.entries<string>(secret.stringData ?? {}))
        env[prefix + key] = value;
    }
  }
  for (const { name, value } of container.env ?? [])
    if (typeof value === 'string') env[name] = value;
  return env;
}

function describeReach(dependency: Dependency): string {
  const { reach, port, protocol } = dependency;
  const where =
    reach.kind === 'cluster' || reach.kind === 'outside'
      ? `${reach.host} (${reach.kind === 'cluster' ? 'a cluster Service' : 'outside the cluster'})`
      : reach.kind === 'addresses'
        ? reach.what
        : 'cluster DNS';
  return `${where} on ${protocol} ${port}`;
}

/** Whether the egress rules of a pod let a dependency through; what is missing if not. */
export function egressGap(rules: ParsedYaml[], dependency: Dependency): string | undefined {
  const { reach, port, protocol } = dependency;
  const open = rules.filter((rule) => admitsPort(rule, port, protocol));
  const peerSets = open.map((rule) => peersOf(rule, 'Egress'));
  const anyPeer = peerSets.some((peers) => peers === undefined);
  if (open.length === 0) return `no rule for ${protocol} ${port}`;
  switch (reach.kind) {
    case 'dns':
      return undefined;
    case 'cluster':
      return anyPeer || peerSets.some((peers) => peers?.some((p: ParsedYaml) => !p.ipBlock))
        ? undefined
        : 'no rule with a pod or namespace selector';
    case 'outside':
      return anyPeer || peerSets.some((peers) => peers?.some((p: ParsedYaml) => p.ipBlock))
        ? undefined
        : 'no rule with an ipBlock';
    case 'addresses': {
      const allowed = anyPeer
        ? [ALL_IPV4]
        : union(
            peerSets.flatMap((peers) =>
              (peers ?? []).filter((p: ParsedYaml) => p.ipBlock).flatMap(ipBlockAddresses),
            ),
          );
      const missing = subtract(reach.addresses, allowed);
      return missing.length === 0
        ? undefined
        : `not allowed: ${missing.slice(0, 3).map(formatInterval).join(', ')}${missing.length > 3 ? ', ...' : ''}`;
    }
  }
}

/**
 * Every Deployment of a render whose pods the NetworkPolicies isolate for egress, with each
 * dependency of its configuration that no egress rule allows; empty when all are reachable.
 */
export function egressProblems(objects: KubernetesObject[], label: string): string[] {
  const problems: string[] = [];
  for (const deployment of objects.filter((o) => o.kind === 'Deployment')) {
    const name = deployment.metadata.name;
    const namespace = deployment.metadata.namespace ?? 'default';
    const template = deployment.spec.template;
    const rules = rulesFor(objects, namespace, template.metadata.labels ?? {}, 'Egress');
    if (!rules) continue;
    const service = template.metadata.labels?.['app.kubernetes.io/name'] as ServiceName;
    if (!SERVICES.includes(service)) {
      problems.push(`${label}: Deployment ${name}: no configuration class to derive its egress`);
      continue;
    }
    for (const container of template.spec.containers) {
      const env = containerEnvironment(objects, namespace, container);
      for (const dependency of outboundDependencies(service, env)) {
        const gap = egressGap(rules, dependency);
        if (gap)
          problems.push(
            `${label}: Deployment ${name} needs ${describeReach(dependency)} (${dependency.source}); its NetworkPolicy egress has ${gap}`,
          );
      }
    }
  }
  return problems;
}
