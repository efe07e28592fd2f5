import { isUntracedPath } from './instrumentations';
import {
  BATCH_SCHEDULE_DELAY_MS,
  batchScheduleDelayMs,
  otlpProtocol,
  tracingOffReason,
} from './tracing';

describe('tracingOffReason', () => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };

  it('is on with either OTLP endpoint', () => {
    expect(tracingOffReason(endpoint)).toBeNull();
    expect(
      tracingOffReason({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }),
    ).toBeNull();
    expect(tracingOffReason({ ...endpoint, OTEL_TRACES_EXPORTER: 'otlp' })).toBeNull();
  });

  it('is off without an endpoint: nothing is exported unless configured', () => {
    expect(tracingOffReason({})).toMatch(/OTEL_EXPORTER_OTLP_ENDPOINT/);
  });

  it('is off with OTEL_SDK_DISABLED=true, whatever else is set', () => {
    expect(tracingOffReason({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toMatch(
      /OTEL_SDK_DISABLED/,
    );
    expect(tracingOffReason({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE' })).not.toBeNull();
    expect(tracingOffReason({ ...endpoint, OTEL_SDK_DISABLED: 'false' })).toBeNull();
  });

  it('is off with OTEL_TRACES_EXPORTER=none (or an exporter this build does not have)', () => {
    expect(tracingOffReason({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toMatch(/none/);
    expect(tracingOffReason({ ...endpoint, OTEL_TRACES_EXPORTER: 'zipkin' })).toMatch(/zipkin/);
  });
});

describe('otlpProtocol', () => {
  it('is http/protobuf unless configured (the specification default)', () => {
    expect(otlpProtocol({})).toBe('http/protobuf');
  });

  it('takes OTEL_EXPORTER_OTLP_PROTOCOL, and the traces-specific variable over it', () => {
    expect(otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBe('http/json');
    expect(
      otlpProtocol({
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'HTTP/Protobuf ',
      }),
    ).toBe('http/protobuf');
  });

  it('leaves tracing off, saying why, for a protocol this build does not have', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(tracingOffReason({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toMatch(
      /OTEL_EXPORTER_OTLP_PROTOCOL=grpc \(only http\/protobuf and http\/json/,
    );
    expect(tracingOffReason({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBeNull();
  });
});

describe('isUntracedPath', () => {
  it.each([
    '/api/health',
    '/api/health/live',
    '/api/health/ready',
    '/card-issue/api/health/ready',
    '/metrics',
    '/card-issue/metrics?x=1',
  ])('leaves the probe or scrape %s untraced', (url) => {
    expect(isUntracedPath(url)).toBe(true);
  });

  it.each([
    '/api/v1/card-issue',
    '/api/healthy',
    '/api/v1/card-issue/client/X12345',
    '/api/v1/card-issue/client/X12345?next=/metrics',
  ])('traces %s', (url) => {
    expect(isUntracedPath(url)).toBe(false);
  });
});

describe('batchScheduleDelayMs', () => {
  it('exports a batch 200 ms after its first span unless configured (the SDK waits 5 s)', () => {
    expect(BATCH_SCHEDULE_DELAY_MS).toBe(200);
    expect(batchScheduleDelayMs({})).toBe(200);
  });

  it('takes OTEL_BSP_SCHEDULE_DELAY when it is a number of ms, ours otherwise', () => {
    expect(batchScheduleDelayMs({ OTEL_BSP_SCHEDULE_DELAY: '5000' })).toBe(5000);
    expect(batchScheduleDelayMs({ OTEL_BSP_SCHEDULE_DELAY: ' 0 ' })).toBe(0);
    expect(batchScheduleDelayMs({ OTEL_BSP_SCHEDULE_DELAY: 'soon' })).toBe(200);
    expect(batchScheduleDelayMs({ OTEL_BSP_SCHEDULE_DELAY: '-1' })).toBe(200);
    expect(batchScheduleDelayMs({ OTEL_BSP_SCHEDULE_DELAY: '' })).toBe(200);
  });
});
