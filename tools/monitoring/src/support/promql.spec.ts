import { families, isExported, metricNames } from './promql';

describe('metricNames', () => {
  it('finds the metrics and recorded series, not functions, labels or durations', () => {
    expect(
      metricNames(
        'histogram_quantile(0.99, sum by (job, route, le) (rate(http_request_duration_seconds_bucket{job=~"$job",route!="x"}[$__rate_interval]))) / 1e9 > bool job:http_requests:rate5m',
      ).sort(),
    ).toEqual(['http_request_duration_seconds_bucket', 'job:http_requests:rate5m']);
  });
});

describe('isExported', () => {
  it('admits the series of a histogram family', () => {
    const exported = families('# TYPE a_seconds histogram\n# TYPE b_total counter\n');
    expect(isExported('a_seconds_bucket', exported)).toBe(true);
    expect(isExported('b_total', exported)).toBe(true);
    expect(isExported('b_total_count', exported)).toBe(false);
    expect(isExported('c', exported)).toBe(false);
  });
});
