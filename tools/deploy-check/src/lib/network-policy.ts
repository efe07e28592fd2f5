/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return --
   NetworkPolicies are walked as parsed YAML (ParsedYaml, repo.ts); their shape is validated
   against the Kubernetes schema by kustomize-render.spec.ts. */
import { isIPv4 } from 'node:net';
import type { KubernetesObject } from './kubernetes-schema';
import type { ParsedYaml } from './repo';

/**
 * What a NetworkPolicy lets through, evaluated as the API documents it (networking.k8s.io/v1
 * NetworkPolicy): policies select pods of their namespace by label selector; once one selects a
 * pod for a direction, only what the union of those policies' rules allows goes through.
 */

type Labels = Record<string, string>;

/** A LabelSelector (matchLabels and matchExpressions) against labels; `{}` selects everything. */
export function selects(selector: ParsedYaml, labels: Labels = {}): boolean {
  if (!selector) return false;
  for (const [key, value] of Object.entries<string>(selector.matchLabels ?? {}))
    if (labels[key] !== value) return false;
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, key);
    const ok =
      operator === 'In'
        ? has && values.includes(labels[key])
        : operator === 'NotIn'
          ? !has || !values.includes(labels[key])
          : operator === 'Exists'
            ? has
            : operator === 'DoesNotExist'
              ? !has
              : false;
    if (!ok) return false;
  }
  return true;
}

export type Direction = 'Ingress' | 'Egress';

/** policyTypes as the API defaults it: Ingress always, Egress when there are egress rules. */
function directionsOf(policy: ParsedYaml): Direction[] {
  if (policy.spec.policyTypes) return policy.spec.policyTypes;
  return policy.spec.egress ? ['Ingress', 'Egress'] : ['Ingress'];
}

/** The NetworkPolicies that select a pod of `namespace` with `labels` for a direction. */
export function policiesFor(
  objects: KubernetesObject[],
  namespace: string,
  labels: Labels,
  direction: Direction,
): ParsedYaml[] {
  return objects.filter(
    (o) =>
      o.kind === 'NetworkPolicy' &&
      (o.metadata.namespace ?? 'default') === namespace &&
      selects(o.spec.podSelector, labels) &&
      directionsOf(o).includes(direction),
  );
}

export type Protocol = 'TCP' | 'UDP' | 'SCTP';

/**
 * A rule's `ports` admit a port of the destination pod (egress) or of the selected pod
 * (ingress): no list admits every port. A named port is the destination pod's: `named` maps
 * those that pod's manifest declares; one it does not know admits nothing.
 */
export function admitsPort(
  rule: ParsedYaml,
  port: number,
  protocol: Protocol,
  named: Record<string, number> = {},
): boolean {
  const ports: ParsedYaml[] | undefined = rule.ports;
  if (!ports || ports.length === 0) return true;
  return ports.some((p) => {
    if ((p.protocol ?? 'TCP') !== protocol) return false;
    if (p.port === undefined) return true;
    const from: number | undefined = typeof p.port === 'number' ? p.port : named[p.port];
    if (from === undefined) return false;
    return port >= from && port <= (p.endPort ?? from);
  });
}

/** The peers of a rule (`to` of egress, `from` of ingress); undefined: every peer. */
export function peersOf(rule: ParsedYaml, direction: Direction): ParsedYaml[] | undefined {
  const peers: ParsedYaml[] | undefined = direction === 'Egress' ? rule.to : rule.from;
  return peers && peers.length > 0 ? peers : undefined;
}

/** The rules of the policies selecting a pod for a direction; undefined: not isolated. */
export function rulesFor(
  objects: KubernetesObject[],
  namespace: string,
  labels: Labels,
  direction: Direction,
): ParsedYaml[] | undefined {
  const policies = policiesFor(objects, namespace, labels, direction);
  if (policies.length === 0) return undefined;
  return policies.flatMap((p) => (direction === 'Egress' ? p.spec.egress : p.spec.ingress) ?? []);
}

/** A pod elsewhere in the cluster, for a peer to admit: its namespace (name, labels) and labels. */
export interface PodRef {
  namespace: string;
  namespaceLabels: Labels;
  labels: Labels;
}

/**
 * A peer admits a pod: a namespaceSelector alone admits every pod of the namespaces it selects;
 * a podSelector alone pods of the policy's own namespace; both together, pods matching both.
 */
export function peerAdmitsPod(peer: ParsedYaml, pod: PodRef, policyNamespace: string): boolean {
  if (peer.ipBlock) return false;
  const namespaceOk = peer.namespaceSelector
    ? selects(peer.namespaceSelector, pod.namespaceLabels)
    : pod.namespace === policyNamespace;
  const podOk = peer.podSelector ? selects(peer.podSelector, pod.labels) : true;
  return namespaceOk && podOk;
}

// --- IPv4 address sets, as sorted disjoint [first, last] intervals of 32-bit numbers ---

export type Interval = readonly [number, number];

export function ipv4ToNumber(address: string): number {
  return address.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}

/** An IPv4 CIDR as its interval; undefined for an IPv6 one. */
export function cidrInterval(cidr: string): Interval | undefined {
  const [network, prefixText] = cidr.split('/');
  if (!isIPv4(network)) return undefined;
  const prefix = prefixText === undefined ? 32 : Number(prefixText);
  const size = 2 ** (32 - prefix);
  const first = Math.floor(ipv4ToNumber(network) / size) * size;
  return [first, first + size - 1];
}

export function union(sets: Interval[]): Interval[] {
  const sorted = [...sets].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [first, last] of sorted) {
    const previous = out[out.length - 1];
    if (previous && first <= previous[1] + 1) previous[1] = Math.max(previous[1], last);
    else out.push([first, last]);
  }
  return out;
}

/** `from` without the addresses of `minus`. */
export function subtract(from: Interval[], minus: Interval[]): Interval[] {
  let rest = union(from);
  for (const [cutFirst, cutLast] of union(minus)) {
    rest = rest.flatMap(([first, last]): Interval[] => {
      if (cutLast < first || cutFirst > last) return [[first, last]];
      const kept: Interval[] = [];
      if (first < cutFirst) kept.push([first, cutFirst - 1]);
      if (last > cutLast) kept.push([cutLast + 1, last]);
      return kept;
    });
  }
  return rest;
}

export const ALL_IPV4: Interval = [0, 2 ** 32 - 1];

/** The IPv4 addresses an ipBlock peer admits: its cidr without its excepts. */
export function ipBlockAddresses(peer: ParsedYaml): Interval[] {
  const block = cidrInterval(peer.ipBlock.cidr);
  if (!block) return [];
  const excepts = (peer.ipBlock.except ?? [])
    .map((cidr: string) => cidrInterval(cidr))
    .filter((i: Interval | undefined): i is Interval => i !== undefined);
  return subtract([block], excepts);
}

export function formatInterval([first, last]: Interval): string {
  const text = (n: number) =>
    [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
  return first === last ? text(first) : `${text(first)}-${text(last)}`;
}
