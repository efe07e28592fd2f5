import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  describeWithPrometheus,
  PROMTOOL,
  ROOT,
  ruleFile,
  run,
  tempDir,
} from './support/prometheus';

const TESTS = join(ROOT, 'tools', 'monitoring', 'rules', 'alerts.test.yaml');

/** Every alert of the PrometheusRule. */
const ALERTS = ruleFile()
  .groups.flatMap((group) => group.rules)
  .flatMap((rule) => (rule.alert ? [rule.alert] : []));

describeWithPrometheus('k8s/monitoring/prometheusrule.yaml (promtool)', () => {
  const dir = tempDir('promtool-');
  afterAll(() => dir.remove());

  beforeAll(() => {
    writeFileSync(join(dir.path, 'rules.yaml'), JSON.stringify(ruleFile()));
    copyFileSync(TESTS, join(dir.path, 'alerts.test.yaml'));
  });

  it('is a valid rule file', async () => {
    const { stdout } = await run(PROMTOOL, ['check', 'rules', join(dir.path, 'rules.yaml')]);
    expect(stdout).toContain('SUCCESS');
  });

  it('passes its unit tests (tools/monitoring/rules/alerts.test.yaml)', async () => {
    const result = await run(PROMTOOL, ['test', 'rules', join(dir.path, 'alerts.test.yaml')]).catch(
      (error: { stdout?: string; stderr?: string }) => error,
    );
    expect(`${result.stdout ?? ''}${result.stderr ?? ''}`).toContain('SUCCESS');
  });

  it('pages on what matters, and every alert has a unit test', () => {
    expect(ALERTS).toEqual(
      expect.arrayContaining([
        'BankServiceHigh5xxRatio',
        'BankServiceHighLatencyP99',
        'CardIssueOutboxStuck',
        'CardIssueOutboxDeadLetters',
        'CardIssueSchedulerLag',
        'BankServiceDatabaseDown',
      ]),
    );
    const tests = readFileSync(TESTS, 'utf8');
    for (const alert of ALERTS) expect(tests).toContain(`alertname: ${alert}\n`);
  });
});
