import { describe, expect, it } from '@jest/globals';
import { createMetrics, createQuotaMetrics } from '../src/index.js';

// Per-org quota use with a bounded number of series: however many orgs are counted, each quota
// exports only the orgs closest to their limit, and an org pushed out loses its series.

const series = async (registry: ReturnType<typeof createMetrics>['registry'], name: string) =>
  (await registry.metrics()).split('\n').filter((line) => line.startsWith(`${name}{`));

describe('quota metrics', () => {
  it('keep at most topOrgs orgs per quota, those closest to their limit', async () => {
    const metrics = createMetrics({ service: 'test', processMetrics: false });
    const quotas = createQuotaMetrics(metrics, { topOrgs: 3 });
    for (let i = 1; i <= 30; i++) quotas.observe('artifacts', `org-${i}`, i, 100);
    quotas.observe('storage_bytes', 'org-1', 5, undefined);
    const use = await series(metrics.registry, 'quarry_quota_org_use');
    expect(
      use
        .filter((l) => l.includes('quota="artifacts"'))
        .map((l) => /org="([^"]+)"/.exec(l)![1])
        .sort(),
    ).toEqual(['org-28', 'org-29', 'org-30']);
    expect(use.filter((l) => l.includes('quota="storage_bytes"'))).toHaveLength(1);
    const limit = await series(metrics.registry, 'quarry_quota_org_limit');
    expect(limit).toHaveLength(3);

    // An org nearer its limit than those shown replaces the farthest of them.
    quotas.observe('artifacts', 'org-2', 99, 100);
    const after = (await series(metrics.registry, 'quarry_quota_org_use')).filter((l) => l.includes('"artifacts"'));
    expect(after.map((l) => /org="([^"]+)"/.exec(l)![1]).sort()).toEqual(['org-2', 'org-29', 'org-30']);
  });

  it('count refusals per quota, without the org', async () => {
    const metrics = createMetrics({ service: 'test', processMetrics: false });
    const quotas = createQuotaMetrics(metrics);
    quotas.refused('calls_per_minute.write');
    quotas.refused('calls_per_minute.write');
    expect(await series(metrics.registry, 'quarry_quota_refusals_total')).toEqual([
      'quarry_quota_refusals_total{quota="calls_per_minute.write",service="test"} 2',
    ]);
  });
});
