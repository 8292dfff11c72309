import type { Metrics } from './metrics.js';

/**
 * Per-org quota use for Prometheus with a bounded number of series (docs/adr/0061-per-org-quotas.md).
 * An org id label on every series would grow with the tenants; here each quota keeps series for
 * at most `topOrgs` orgs: those closest to their limit (by use ÷ limit; by use when unlimited)
 * among what this process has counted. An org that falls out of that set has its series removed,
 * so a process exports at most quotas × topOrgs × 2 of them. Refusals are counted per quota,
 * without the org. Each replica reports what it saw; `max by (quota, org)` joins them.
 */
export interface QuotaMetrics {
  /** What an org uses of `quota` (and its limit) as a charge or an admission just found it. */
  observe(quota: string, orgId: string, used: number, limit: number | undefined): void;
  /** A call or a write refused by `quota`. */
  refused(quota: string): void;
}

export function createQuotaMetrics(metrics: Metrics, options: { topOrgs?: number } = {}): QuotaMetrics {
  const topOrgs = options.topOrgs ?? 20;
  const use = metrics.gauge('quarry_quota_org_use', 'Use of a quota by the orgs closest to their limit', [
    'quota',
    'org',
  ]);
  const limits = metrics.gauge(
    'quarry_quota_org_limit',
    'The limit of a quota for the orgs reported in quarry_quota_org_use',
    ['quota', 'org'],
  );
  const refusals = metrics.counter('quarry_quota_refusals_total', 'Calls and writes refused by a quota', ['quota']);
  const shown = new Map<string, Map<string, number>>();

  return {
    observe(quota, orgId, used, limit) {
      let orgs = shown.get(quota);
      if (!orgs) shown.set(quota, (orgs = new Map()));
      orgs.set(orgId, limit ? used / limit : limit === 0 ? Infinity : used / Number.MAX_SAFE_INTEGER);
      if (orgs.size > topOrgs) {
        let lowest: [string, number] | undefined;
        for (const entry of orgs) if (!lowest || entry[1] < lowest[1]) lowest = entry;
        orgs.delete(lowest![0]);
        use.remove({ quota, org: lowest![0] });
        limits.remove({ quota, org: lowest![0] });
      }
      if (!orgs.has(orgId)) return;
      use.set({ quota, org: orgId }, used);
      if (limit === undefined) limits.remove({ quota, org: orgId });
      else limits.set({ quota, org: orgId }, limit);
    },
    refused(quota) {
      refusals.inc({ quota });
    },
  };
}
