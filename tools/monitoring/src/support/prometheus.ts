import { ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { closedPort } from '@bank/shared/testing';

/** The workspace root (this file is tools/monitoring/src/support/prometheus.ts). */
export const ROOT = join(__dirname, '..', '..', '..', '..');
export const MONITORING_DIR = join(ROOT, 'k8s', 'monitoring');

/** Debian's `prometheus` package (`apt-get install prometheus`; .ci/run installs it when missing). */
export const PROMTOOL = process.env.PROMTOOL_PATH ?? '/usr/bin/promtool';
export const PROMETHEUS = process.env.PROMETHEUS_PATH ?? '/usr/bin/prometheus';

/** Skipped where Prometheus is not installed, except under CI, where it is required. */
export const describeWithPrometheus =
  (existsSync(PROMTOOL) && existsSync(PROMETHEUS)) || process.env.CI ? describe : describe.skip;

export const run = promisify(execFile);

interface RuleGroup {
  name: string;
  rules: { record?: string; alert?: string; expr: string }[];
}

/** The `spec` of k8s/monitoring/prometheusrule.yaml: a Prometheus rule file as it stands. */
export function ruleFile(): { groups: RuleGroup[] } {
  const resource = parse(readFileSync(join(MONITORING_DIR, 'prometheusrule.yaml'), 'utf8')) as {
    spec: { groups: RuleGroup[] };
  };
  return resource.spec;
}

/** A temporary directory, removed by `remove`. */
export function tempDir(prefix: string): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export interface RunningPrometheus {
  url: string;
  proc: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/**
 * A real Prometheus on a free loopback port with its own temporary config, data directory and
 * the rule file, scraping `targets` (job name -> host:port) every second and evaluating the
 * rules every second.
 */
export async function startPrometheus(targets: Record<string, string>): Promise<RunningPrometheus> {
  const dir = tempDir('prometheus-');
  const rules = join(dir.path, 'rules.yaml');
  writeFileSync(rules, JSON.stringify(ruleFile()));
  const config = {
    global: { scrape_interval: '1s', evaluation_interval: '1s', scrape_timeout: '900ms' },
    rule_files: [rules],
    scrape_configs: Object.entries(targets).map(([job, target]) => ({
      job_name: job,
      metrics_path: '/metrics',
      static_configs: [{ targets: [target], labels: { namespace: 'test' } }],
    })),
  };
  const configFile = join(dir.path, 'prometheus.yml');
  writeFileSync(configFile, JSON.stringify(config));
  const port = await closedPort();
  const proc = spawn(
    PROMETHEUS,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(dir.path, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  proc.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  proc.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => proc.once('close', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
    await exited;
    dir.remove();
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (proc.exitCode !== null) {
      dir.remove();
      throw new Error(`prometheus exited with ${proc.exitCode}:\n${output.slice(-3000)}`);
    }
    try {
      if ((await fetch(`${url}/-/ready`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus not ready:\n${output.slice(-3000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { url, proc, output: () => output, stop };
}

/** One series of an instant query. */
export interface QueryResult {
  metric: Record<string, string>;
  value: [number, string];
}

/** An instant query through the HTTP API. */
export async function query(prometheus: string, promql: string): Promise<QueryResult[]> {
  const res = await fetch(`${prometheus}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await res.json()) as {
    status: string;
    error?: string;
    data: { result: QueryResult[] };
  };
  if (body.status !== 'success') throw new Error(`query ${promql}: ${body.error}`);
  return body.data.result;
}

export interface RuleState {
  name: string;
  type: 'recording' | 'alerting';
  health: string;
  lastError?: string;
  state?: 'inactive' | 'pending' | 'firing';
  alerts?: { labels: Record<string, string>; state: string }[];
}

/** Every rule as Prometheus evaluates it (/api/v1/rules). */
export async function rules(prometheus: string): Promise<RuleState[]> {
  const res = await fetch(`${prometheus}/api/v1/rules`);
  const body = (await res.json()) as { data: { groups: { rules: RuleState[] }[] } };
  return body.data.groups.flatMap((group) => group.rules);
}
