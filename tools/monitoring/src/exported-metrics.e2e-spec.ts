import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RunningTestService } from '@bank/shared/testing';
import { BACKGROUND_OFF, startCardIssue } from '@bank/card-issue/testing';
import { startClientRegistration } from '@bank/client-registration/testing';
import { families, isExported, metricNames } from './support/promql';
import { MONITORING_DIR, ruleFile } from './support/prometheus';

interface Panel {
  type: string;
  title: string;
  targets?: { expr: string }[];
}

const dashboard = JSON.parse(readFileSync(join(MONITORING_DIR, 'dashboard.json'), 'utf8')) as {
  uid: string;
  panels: Panel[];
};
const rules = ruleFile().groups.flatMap((group) => group.rules);
const recorded = new Map(rules.flatMap((rule) => (rule.record ? [[rule.record, rule.expr]] : [])));
/** Series Prometheus makes itself. */
const PROMETHEUS_OWN = new Set(['up']);

/** The metrics an expression reads, recorded series expanded into what they record. */
function readMetrics(expr: string): string[] {
  return metricNames(expr).flatMap((name) => {
    const recording = recorded.get(name);
    return recording ? readMetrics(recording) : [name];
  });
}

describe('the dashboard and the rules read series both services export (e2e)', () => {
  let cardIssue: RunningTestService;
  let registration: RunningTestService;
  let exported: Map<string, string>;

  beforeAll(async () => {
    cardIssue = await startCardIssue({ label: 'monitoring_card_issue', env: BACKGROUND_OFF });
    registration = await startClientRegistration({ label: 'monitoring_registration' });
    const texts = await Promise.all(
      [cardIssue, registration].map(async (t) => (await fetch(`${t.url}/metrics`)).text()),
    );
    exported = new Map(texts.flatMap((text) => [...families(text)]));
  });
  afterAll(async () => {
    await cardIssue?.close();
    await registration?.close();
  });

  it('the dashboard parses and every panel queries exported metrics', () => {
    expect(dashboard.uid).toBe('bank-backoffice');
    const panels = dashboard.panels.filter((panel) => panel.type !== 'row');
    expect(panels.length).toBeGreaterThan(10);
    for (const panel of panels) {
      expect({ panel: panel.title, targets: panel.targets?.length ?? 0 }).toEqual({
        panel: panel.title,
        targets: expect.any(Number),
      });
      expect(panel.targets?.length).toBeGreaterThan(0);
      for (const { expr } of panel.targets ?? []) {
        const names = readMetrics(expr);
        expect(names.length).toBeGreaterThan(0);
        const missing = names.filter((name) => !isExported(name, exported));
        expect({ panel: panel.title, missing }).toEqual({ panel: panel.title, missing: [] });
      }
    }
  });

  it('the RED and backlog panels are there', () => {
    const read = new Set(
      dashboard.panels.flatMap((panel) =>
        (panel.targets ?? []).flatMap((t) => readMetrics(t.expr)),
      ),
    );
    for (const name of [
      'http_requests_total',
      'http_request_duration_seconds_bucket',
      'card_issue_scheduler_due_requests',
      'card_issue_scheduler_oldest_due_age_seconds',
      'card_issue_outbox_pending_messages',
      'card_issue_outbox_dead_messages',
      'card_issue_outbox_oldest_pending_age_seconds',
    ])
      expect(read).toContain(name);
  });

  it('every rule reads exported metrics', () => {
    for (const rule of rules) {
      const missing = readMetrics(rule.expr).filter(
        (name) => !PROMETHEUS_OWN.has(name) && !isExported(name, exported),
      );
      expect({ rule: rule.record ?? rule.alert, missing }).toEqual({
        rule: rule.record ?? rule.alert,
        missing: [],
      });
    }
  });
});
