import { Injectable } from '@nestjs/common';
import { Counter, Histogram } from 'prom-client';
import { Metrics } from '@bank/shared/metrics';
import { DownstreamService, GatewayOutcome } from './gateway-result.model';

/** Label values of the downstream services (a fixed set). */
const SERVICE_LABEL: Record<DownstreamService, string> = {
  'user service': 'user',
  'branch service': 'branch',
  'operation service': 'operation',
};

/**
 * The outcome of a call as a label (bounded): the status class of the last answer, or why there
 * was none. The gateway's reasons are fixed texts (describeFailure and GatewayHttp.send).
 */
export function downstreamOutcome(outcome: GatewayOutcome): string {
  if (outcome.kind === 'answered') return `${Math.min(5, Math.floor(outcome.status / 100))}xx`;
  const reason = outcome.reason;
  if (reason.startsWith('circuit open')) return 'circuit_open';
  if (reason === 'request budget spent') return 'budget_spent';
  if (reason.startsWith('no answer within')) return 'timeout';
  return 'network_error';
}

/**
 * Calls to the user, branch and operation services, as the gateway makes them: one count and one
 * duration per call (its retries and backoff included) by service and outcome, and the attempts
 * (so retries show as attempts above calls).
 */
@Injectable()
export class DownstreamMetrics {
  private readonly calls: Counter<'service' | 'outcome'>;
  private readonly duration: Histogram<'service' | 'outcome'>;
  private readonly attempts: Counter<'service'>;

  constructor(metrics: Metrics) {
    this.calls = metrics.counter({
      name: 'downstream_requests_total',
      help: 'Calls to a downstream service, by service and outcome (status class of the last answer, timeout, network_error, circuit_open, budget_spent)',
      labelNames: ['service', 'outcome'],
    });
    this.duration = metrics.histogram({
      name: 'downstream_request_duration_seconds',
      help: 'Duration of a downstream call, retries and backoff included, by service and outcome',
      labelNames: ['service', 'outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5],
    });
    this.attempts = metrics.counter({
      name: 'downstream_attempts_total',
      help: 'HTTP attempts to a downstream service (a retried call makes several)',
      labelNames: ['service'],
    });
  }

  record(
    service: DownstreamService,
    outcome: GatewayOutcome,
    seconds: number,
    attempts: number,
  ): void {
    const labels = { service: SERVICE_LABEL[service], outcome: downstreamOutcome(outcome) };
    this.calls.inc(labels);
    this.duration.observe(labels, seconds);
    if (attempts) this.attempts.inc({ service: labels.service }, attempts);
  }
}
