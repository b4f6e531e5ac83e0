import type { Registry } from 'prom-client';

interface Series {
  labels: Record<string, string>;
  count: number;
  sum: number;
  /** Observations per bucket, not yet cumulative (the last slot: above every bound). */
  perBucket: number[];
}

/**
 * A counter `<counter>` and a histogram `<histogram>` over the same label sets, recorded with plain
 * arithmetic on the request path and read by prom-client only when /metrics is scraped. prom-client's own
 * Counter and Histogram check and hash the labels on every call, even through `labels()` children, which
 * measurably cost a light request (~7 % of GET /special-events/{id}); here a record is a Map lookup by a key
 * the caller already has, and a few additions. Both are registered as metrics of the registry (its public
 * `registerMetric`), in the exposition format prom-client writes for its own.
 */
export class Timings {
  private readonly series = new Map<string, Series>();
  private readonly bounds: readonly number[];

  constructor(
    registry: Registry,
    names: { counter: string; counterHelp: string; histogram: string; histogramHelp: string },
    bounds: readonly number[],
  ) {
    this.bounds = bounds;
    const all = () => [...this.series.values()];
    registry.registerMetric({
      name: names.counter,
      get: async () => ({
        name: names.counter,
        help: names.counterHelp,
        type: 'counter',
        aggregator: 'sum',
        values: all().map((series) => ({ labels: series.labels, value: series.count })),
      }),
    } as never);
    registry.registerMetric({
      name: names.histogram,
      get: async () => ({
        name: names.histogram,
        help: names.histogramHelp,
        type: 'histogram',
        aggregator: 'sum',
        values: all().flatMap((series) => {
          let cumulative = 0;
          const buckets = bounds.map((bound, i) => {
            cumulative += series.perBucket[i]!;
            return {
              labels: { ...series.labels, le: bound },
              value: cumulative,
              metricName: `${names.histogram}_bucket`,
            };
          });
          return [
            ...buckets,
            {
              labels: { ...series.labels, le: '+Inf' },
              value: series.count,
              metricName: `${names.histogram}_bucket`,
            },
            { labels: series.labels, value: series.sum, metricName: `${names.histogram}_sum` },
            { labels: series.labels, value: series.count, metricName: `${names.histogram}_count` },
          ];
        }),
      }),
    } as never);
  }

  /** Counts one observation of `seconds` under `key`; `labels` is asked for once, when the key is new. */
  record(key: string, labels: () => Record<string, string>, seconds: number): void {
    let series = this.series.get(key);
    if (!series) {
      series = { labels: labels(), count: 0, sum: 0, perBucket: new Array(this.bounds.length + 1).fill(0) };
      this.series.set(key, series);
    }
    series.count += 1;
    series.sum += seconds;
    let i = 0;
    while (i < this.bounds.length && seconds > this.bounds[i]!) i++;
    series.perBucket[i]! += 1;
  }
}
