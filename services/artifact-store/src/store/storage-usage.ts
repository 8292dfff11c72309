import { sql } from 'kysely';
import { effectiveLimits, type StorageLimits, storageOverrun, type StorageUse } from '../core/storage-quota.js';
import { artifactErrors } from '../errors.js';
import type { QuotaMetrics } from '@quarry/telemetry';
import type { Trx } from './tenant.js';

// An org's storage totals against its quotas, inside the caller's tenant transaction (the storing
// or deleting one), so the totals move exactly when the rows do.

const UNITS = { storage_bytes: 'bytes', artifacts: 'artifacts' } as const;

/** Every org's default limits, and where each org's use is reported (Prometheus). */
export interface StorageQuotas {
  defaults: StorageLimits;
  metrics?: QuotaMetrics;
}

/**
 * Adds a write to its org's totals and refuses it (QUOTA_EXCEEDED, which rolls the transaction
 * back) when that passes a limit. The upsert locks the org's row until the transaction ends, so
 * concurrent writes of one org are counted one after another: together they store up to the
 * limit, never past it. Other orgs' writes take other rows and do not wait.
 */
export async function chargeStorage(trx: Trx, orgId: string, adding: StorageUse, quotas: StorageQuotas) {
  if (adding.items === 0 && adding.bytes === 0) return;
  const totals = await trx
    .insertInto('artifact.org_usage')
    .values({ org_id: orgId, stored_bytes: adding.bytes, artifacts: adding.items })
    .onConflict((oc) =>
      oc.column('org_id').doUpdateSet((eb) => ({
        stored_bytes: eb('artifact.org_usage.stored_bytes', '+', eb.ref('excluded.stored_bytes')),
        artifacts: eb('artifact.org_usage.artifacts', '+', eb.ref('excluded.artifacts')),
      })),
    )
    .returning(['stored_bytes', 'artifacts'])
    .executeTakeFirstOrThrow();
  const own = await trx
    .selectFrom('artifact.org_quotas')
    .select(['storage_bytes', 'artifacts'])
    .where('org_id', '=', orgId)
    .executeTakeFirst();
  const after = { bytes: Number(totals.stored_bytes), items: Number(totals.artifacts) };
  const limits = effectiveLimits(own, quotas.defaults);
  const overrun = storageOverrun(after, adding, limits);
  if (overrun) quotas.metrics?.refused(overrun.quota);
  else {
    quotas.metrics?.observe('storage_bytes', orgId, after.bytes, limits.storageBytes);
    quotas.metrics?.observe('artifacts', orgId, after.items, limits.artifacts);
  }
  if (overrun)
    throw artifactErrors.QUOTA_EXCEEDED(
      { ...overrun, unit: UNITS[overrun.quota] },
      { details: { quota: overrun.quota, limit: overrun.limit, used: overrun.used, resetsAt: 'never' } },
    );
}

/** Takes deleted rows off their org's totals (row-level security: the caller's org's row). */
export async function releaseStorage(trx: Trx, removed: StorageUse): Promise<void> {
  if (removed.items === 0 && removed.bytes === 0) return;
  await sql`
    update artifact.org_usage
    set stored_bytes = stored_bytes - ${removed.bytes}, artifacts = artifacts - ${removed.items}
  `.execute(trx);
}
