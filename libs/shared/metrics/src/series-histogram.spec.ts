import { Histogram, Registry } from 'prom-client';
import { SeriesHistogram } from './series-histogram';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 1];
const LABELS = ['method', 'route', 'status_class'];
const HELP = 'Time from a request arriving to its response sent';

/** The same observations into prom-client's Histogram and a SeriesHistogram, in registries of their own. */
function sideBySide(observations: [Record<string, string>, number][]) {
  const reference = new Registry();
  const histogram = new Histogram({
    name: 'http_request_duration_seconds',
    help: HELP,
    labelNames: LABELS,
    buckets: BUCKETS,
    registers: [reference],
  });
  const ours = new Registry();
  const series = new SeriesHistogram('http_request_duration_seconds', HELP, LABELS, BUCKETS, ours);
  for (const [labels, value] of observations) {
    histogram.observe(labels, value);
    series.series(labels).observe(value);
  }
  return { reference, ours, histogram, series };
}

const GET = { method: 'GET', route: '/api/v1/card-issue/:id', status_class: '2xx' };
const POST = { method: 'POST', route: '/api/v1/card-issue', status_class: '5xx' };

describe('SeriesHistogram', () => {
  it("is exposed exactly as prom-client's Histogram with the same observations", async () => {
    const { reference, ours } = sideBySide([
      [GET, 0.004],
      [GET, 0.005], // on a bound: counted in it (le)
      [GET, 0.0051],
      [POST, 0.1],
      [POST, 2.5], // above every bound: +Inf only
      [GET, 0],
      [{ ...GET, route: 'a "quoted" \\ route\n' }, 0.02], // escaped as prom-client escapes
    ]);
    expect(await ours.metrics()).toBe(await reference.metrics());
    expect(await ours.getMetricsAsJSON()).toEqual(await reference.getMetricsAsJSON());
  });

  it('keeps one series per label set, however often it is asked for', () => {
    const { series } = sideBySide([]);
    const first = series.series({ ...GET });
    expect(series.series({ ...GET })).toBe(first);
    expect(series.series(POST)).not.toBe(first);
    expect([...series.allSeries()]).toHaveLength(2);
  });

  it('resets every series to zero and keeps counting in the series its callers hold', async () => {
    const { reference, ours, histogram, series } = sideBySide([[GET, 0.02]]);
    const kept = series.series(GET);
    reference.resetMetrics();
    ours.resetMetrics();
    histogram.zero(GET);
    expect(await ours.metrics()).toBe(await reference.metrics());
    kept.observe(0.3);
    histogram.observe(GET, 0.3);
    expect(await ours.metrics()).toBe(await reference.metrics());
  });
});
