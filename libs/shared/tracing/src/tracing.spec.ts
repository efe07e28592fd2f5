import { isUntracedPath, tracingOffReason } from './tracing';

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
