import type { CursorCodec } from '@quarry/cursors';
import type { ConversionLimits } from '@quarry/documents';
import type { Kysely } from 'kysely';
import type { QuotaMetrics } from '@quarry/telemetry';
import type { Logger } from 'pino';
import type { StorageLimits } from '../core/storage-quota.js';
import type { PlanReferences } from '../plans.js';
import type { ArtifactWriter } from '../store/group-commit.js';
import type { ArtifactDatabase } from '../store/schema.js';
import type { UrlFetchSettings } from '../web/fetch-url.js';
import type { StorageQuotas } from '../store/storage-usage.js';

/** How the read tools page long text (docs/adr/0024-read-back-budget-and-urls.md). */
export interface ReadSettings {
  /** Bytes of text a read returns when the caller does not say (maxBytes). */
  budgetBytes: number;
}

/** What every ArtifactService handler may use. */
export interface ArtifactServiceDeps {
  db: Kysely<ArtifactDatabase>;
  plans: PlanReferences;
  reads: ReadSettings;
  /** Seals and opens the cursors of the read tools' pages and of the list rpcs (ADR 0024). */
  cursors: CursorCodec;
  logger: Logger;
  /**
   * Every org's storage limits unless the operator set its own (artifact.org_quotas); none when
   * absent (docs/adr/0061-per-org-quotas.md).
   */
  storageQuotas?: StorageLimits;
  /** Per-org storage use and refusals for Prometheus (bounded series). */
  quotaMetrics?: QuotaMetrics;
  /** What one import_document conversion may use (default: @quarry/documents' limits). */
  conversionLimits?: Partial<ConversionLimits>;
  /** What import_url may fetch, how much and how long, and how it resolves host names (default: public targets only, web/fetch-url.ts' limits, the system resolver). */
  urlImports?: Partial<UrlFetchSettings>;
}

/** What the service adds for its handlers: state shared by the calls of one service instance. */
export interface HandlerDeps extends ArtifactServiceDeps {
  /** store_research's writes, committed in groups per org (store/group-commit.ts). */
  artifactWrites: ArtifactWriter;
  urlImports: UrlFetchSettings;
}

/** What a write is charged against: the defaults, the org's own limits (read in its transaction), the metrics. */
export function storageQuotasOf(deps: ArtifactServiceDeps): StorageQuotas {
  return { defaults: deps.storageQuotas ?? {}, metrics: deps.quotaMetrics };
}
