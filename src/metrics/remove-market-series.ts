/**
 * Drop every label series of one market from a registry (prom-client `remove`), so a retired
 * market's counters and histograms stop being exported and their memory returns (claimable amounts
 * excepted: see KEEP_AFTER_RELEASE). Gauges that are
 * rebuilt from the state at each scrape need nothing: the market is gone from their source.
 */
import type { Registry } from 'prom-client';

interface Removable {
  labelNames?: readonly string[];
  get(): Promise<{ values: { labels: Record<string, string | number> }[] }> | { values: { labels: Record<string, string | number> }[] };
  remove(labels: Record<string, string | number>): void;
}

/**
 * Series that outlive a market's quoting: what is claimable there (src/runtime/claims) is reported
 * until it is claimed, and its owner removes the label then.
 */
export const KEEP_AFTER_RELEASE = (name: string): boolean => /claimable/.test(name);

/** Labels a histogram or summary adds per sample (not part of a series' identity). */
const SAMPLE_LABELS = new Set(['le', 'quantile']);

/**
 * Series removed. `names` are the market's label values (its id, and its slug where metrics label by
 * slug), as the series were labelled: the id in normal form (docs/architecture.md#ids-at-the-boundary), the slug as stored.
 */
export async function removeMarketSeries(
  registry: Registry,
  names: readonly string[],
  keep: (metricName: string) => boolean = KEEP_AFTER_RELEASE,
): Promise<number> {
  const want = new Set(names);
  let removed = 0;
  for (const metric of registry.getMetricsAsArray() as unknown as Removable[]) {
    const labelNames = (metric as { labelNames?: readonly string[] }).labelNames;
    if (!labelNames || !labelNames.includes('market')) continue;
    if (keep((metric as unknown as { name: string }).name)) continue;
    let values: { labels: Record<string, string | number> }[];
    try {
      values = (await metric.get()).values;
    } catch {
      continue;
    }
    const seen = new Set<string>();
    for (const v of values) {
      if (!want.has(String(v.labels.market ?? ''))) continue;
      const labels: Record<string, string | number> = {};
      for (const [k, x] of Object.entries(v.labels)) if (!SAMPLE_LABELS.has(k) && labelNames.includes(k)) labels[k] = x;
      const id = JSON.stringify(labels);
      if (seen.has(id)) continue;
      seen.add(id);
      metric.remove(labels);
      removed++;
    }
  }
  return removed;
}
