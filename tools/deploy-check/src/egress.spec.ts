import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { WebhookTargetPolicy } from '@bank/shared/webhooks';
import { parse, stringify } from 'yaml';
import {
  containerEnvironment,
  type Dependency,
  egressProblems,
  NON_PUBLIC_IPV4,
  outboundDependencies,
} from './lib/egress';
import { cidrInterval, formatInterval } from './lib/network-policy';
import { OVERLAYS } from './lib/kustomize';
import { describeWithKubectl, find, render } from './lib/render';
import type { ParsedYaml } from './lib/repo';

/** Rewrites a YAML file of the temporary k8s/ copy (comments are lost, which is fine there). */
function editYaml(file: string, edit: (document: ParsedYaml) => void): void {
  const document: ParsedYaml = parse(readFileSync(file, 'utf8'));
  edit(document);
  writeFileSync(file, stringify(document));
}

/** Drops the egress rules of a service's NetworkPolicy that `drop` picks. */
function dropEgress(service: string, drop: (rule: ParsedYaml) => boolean) {
  return (k8s: string) =>
    editYaml(path.join(k8s, service, 'networkpolicy.yaml'), (policy) => {
      policy.spec.egress = policy.spec.egress.filter((rule: ParsedYaml) => !drop(rule));
    });
}

const onPort = (port: number) => (rule: ParsedYaml) =>
  (rule.ports ?? []).some((p: ParsedYaml) => p.port === port);

/** Adds settings to a service's config.env (so to every overlay's ConfigMap). */
function configure(service: string, lines: string[]) {
  return (k8s: string) =>
    appendFileSync(path.join(k8s, service, 'config.env'), `\n${lines.join('\n')}\n`);
}

function summary(d: Dependency): string {
  const where =
    d.reach.kind === 'dns'
      ? 'dns'
      : d.reach.kind === 'addresses'
        ? `addresses ${d.reach.what}`
        : `${d.reach.kind} ${d.reach.host}`;
  return `${d.source}: ${where} ${d.protocol} ${d.port}`;
}

describe('public addresses, as the webhook sender judges them', () => {
  const sender = new WebhookTargetPolicy({ production: true });
  const text = (n: number) => formatInterval([n, n]);
  const ranges = NON_PUBLIC_IPV4.map((cidr) => cidrInterval(cidr)!);
  const inAny = (n: number) => ranges.some(([first, last]) => n >= first && n <= last);

  it.each(NON_PUBLIC_IPV4)(
    '%s is refused by the sender, and the addresses around it are not',
    (cidr) => {
      const [first, last] = cidrInterval(cidr)!;
      expect(sender.isAddressAllowed(text(first))).toBe(false);
      expect(sender.isAddressAllowed(text(last))).toBe(false);
      for (const next of [first - 1, last + 1])
        if (next >= 0 && next < 2 ** 32 && !inAny(next))
          expect([text(next), sender.isAddressAllowed(text(next))]).toEqual([text(next), true]);
    },
  );
});

describeWithKubectl('NetworkPolicy egress: what each service is configured to reach', () => {
  const rendered = Object.fromEntries(
    OVERLAYS.map((overlay) => [overlay, render(`overlays/${overlay}`)]),
  );

  function dependencies(overlay: string, service: 'card-issue' | 'client-registration') {
    const objects = rendered[overlay];
    const deployment = find(objects, 'Deployment', service);
    const env = containerEnvironment(
      objects,
      deployment.metadata.namespace,
      deployment.spec.template.spec.containers[0],
    );
    return outboundDependencies(service, env).map(summary);
  }

  it('prod: derived from the rendered ConfigMap and Secret of each Deployment', () => {
    expect(dependencies('prod', 'card-issue').sort()).toEqual(
      [
        'DATABASE_URL: cluster pgbouncer TCP 6432',
        'DATABASE_DIRECT_URL: cluster postgres TCP 5432',
        'AUTH_JWKS_URL: outside issuer.bank.invalid TCP 443',
        'WEBHOOKS_ENABLED: addresses the public internet TCP 443',
        'host names: dns UDP 53',
      ].sort(),
    );
    expect(dependencies('prod', 'client-registration').sort()).toEqual(
      [
        'DATABASE_URL: cluster pgbouncer TCP 6432',
        'DATABASE_DIRECT_URL: cluster postgres TCP 5432',
        'AUTH_JWKS_URL: outside issuer.bank.invalid TCP 443',
        'host names: dns UDP 53',
      ].sort(),
    );
  });

  it('dev: no JWKS (AUTH_MODE=none), the development database, webhooks', () => {
    expect(dependencies('dev', 'card-issue').sort()).toEqual(
      [
        'DATABASE_URL: cluster postgres TCP 5432',
        'WEBHOOKS_ENABLED: addresses the public internet TCP 443',
        'host names: dns UDP 53',
      ].sort(),
    );
    expect(dependencies('dev', 'client-registration')).toEqual([
      'DATABASE_URL: cluster postgres TCP 5432',
      'host names: dns UDP 53',
    ]);
  });

  it.each(OVERLAYS)('k8s/overlays/%s: every dependency has an egress rule', (overlay) => {
    expect(egressProblems(rendered[overlay], overlay)).toEqual([]);
  });

  describe('a dependency without egress is reported', () => {
    it('without the public HTTPS rule: webhook deliveries and the JWKS fetch', () => {
      // The rules as they were before that rule: the dropped webhooks and JWKS of production.
      const problems = egressProblems(
        render('overlays/prod', (k8s) => {
          dropEgress('card-issue', onPort(443))(k8s);
          dropEgress('client-registration', onPort(443))(k8s);
        }),
        'prod',
      );
      // card-issue's downstream rule admits every port, to labelled pods only.
      expect(problems).toEqual([
        'prod: Deployment card-issue needs issuer.bank.invalid (outside the cluster) on TCP 443 (AUTH_JWKS_URL); its NetworkPolicy egress has no rule with an ipBlock',
        expect.stringMatching(
          /^prod: Deployment card-issue needs the public internet on TCP 443 \(WEBHOOKS_ENABLED\); its NetworkPolicy egress has not allowed: 1\.0\.0\.0-9\.255\.255\.255, 11\.0\.0\.0-100\.63\.255\.255, /,
        ),
        'prod: Deployment client-registration needs issuer.bank.invalid (outside the cluster) on TCP 443 (AUTH_JWKS_URL); its NetworkPolicy egress has no rule for TCP 443',
      ]);
    });

    it('a public rule that excepts a public range', () => {
      const problems = egressProblems(
        render('overlays/dev', (k8s) =>
          editYaml(path.join(k8s, 'card-issue', 'networkpolicy.yaml'), (policy) => {
            const rule = policy.spec.egress.find(onPort(443));
            rule.to[0].ipBlock.except.push('8.8.8.0/24');
          }),
        ),
        'dev',
      );
      expect(problems).toEqual([
        expect.stringContaining(
          'the public internet on TCP 443 (WEBHOOKS_ENABLED); its NetworkPolicy egress has not allowed: 8.8.8.0-8.8.8.255',
        ),
      ]);
    });

    it('a tracing collector once OTEL_EXPORTER_OTLP_ENDPOINT is set, when its rule is gone', () => {
      const tracing = configure('client-registration', [
        'OTEL_EXPORTER_OTLP_ENDPOINT=http://otel-collector.monitoring.svc:4318',
      ]);
      expect(egressProblems(render('overlays/prod', tracing), 'prod')).toEqual([]);
      const problems = egressProblems(
        render('overlays/prod', (k8s) => {
          tracing(k8s);
          dropEgress('client-registration', onPort(4318))(k8s);
        }),
        'prod',
      );
      expect(problems).toEqual([
        'prod: Deployment client-registration needs otel-collector.monitoring.svc (a cluster Service) on TCP 4318 (OTEL_EXPORTER_OTLP_ENDPOINT); its NetworkPolicy egress has no rule for TCP 4318',
      ]);
    });

    it('a downstream service: in the cluster by its label rule, outside on 443 only', () => {
      const downstream = configure('card-issue', [
        'USER_API_URL=http://users.people.svc.cluster.local:8080',
        'OPERATION_API_URL=https://operations.bank.example',
        'BRANCH_API_URL=https://branches.bank.example:8443',
      ]);
      expect(egressProblems(render('overlays/dev', downstream), 'dev')).toEqual([
        'dev: Deployment card-issue needs branches.bank.example (outside the cluster) on TCP 8443 (BRANCH_API_URL); its NetworkPolicy egress has no rule with an ipBlock',
      ]);
      const withoutDownstreamRule = egressProblems(
        render('overlays/dev', (k8s) => {
          downstream(k8s);
          dropEgress('card-issue', (rule) =>
            (rule.to ?? []).some(
              (p: ParsedYaml) =>
                p.podSelector?.matchLabels?.['bank-backoffice/card-issue-downstream'],
            ),
          )(k8s);
        }),
        'dev',
      );
      expect(withoutDownstreamRule).toContainEqual(
        expect.stringContaining(
          'needs users.people.svc.cluster.local (a cluster Service) on TCP 8080 (USER_API_URL)',
        ),
      );
    });

    it('address literals: an IPv4 database outside every ipBlock, an IPv6 one without any', () => {
      const problems = egressProblems(
        render('overlays/dev', (k8s) =>
          editYaml(path.join(k8s, 'overlays', 'dev', 'kustomization.yaml'), (k) => {
            const secret = k.secretGenerator.find(
              (g: ParsedYaml) => g.name === 'client-registration-secrets',
            );
            secret.literals = [
              'DATABASE_URL=postgres://u:p@10.20.30.40:5432/db',
              'DATABASE_DIRECT_URL=postgres://u:p@[fd00::5]:5432/db',
            ];
          }),
        ),
        'dev',
      );
      expect(problems).toEqual([
        'dev: Deployment client-registration needs 10.20.30.40 on TCP 5432 (DATABASE_URL); its NetworkPolicy egress has not allowed: 10.20.30.40',
        'dev: Deployment client-registration needs fd00::5 (outside the cluster) on TCP 5432 (DATABASE_DIRECT_URL); its NetworkPolicy egress has no rule with an ipBlock',
      ]);
    });

    it('the database and DNS', () => {
      const problems = egressProblems(
        render(
          'overlays/dev',
          dropEgress('client-registration', (r) => onPort(5432)(r) || onPort(53)(r)),
        ),
        'dev',
      );
      expect(problems).toEqual([
        'dev: Deployment client-registration needs postgres (a cluster Service) on TCP 5432 (DATABASE_URL); its NetworkPolicy egress has no rule for TCP 5432',
        'dev: Deployment client-registration needs cluster DNS on UDP 53 (host names); its NetworkPolicy egress has no rule for UDP 53',
      ]);
    });
  });
});
