import type { ServiceTokenIssuer } from '@quarry/config';
import { artifactV1 } from '@quarry/contracts';
import { createCursorCodec } from '@quarry/cursors';
import { createDb } from '@quarry/db';
import { buildServiceServer, listenService, type ListeningService, type ServiceTarget } from '@quarry/grpc';
import { createQuotaMetrics, serviceMetrics, type ServiceOptions } from '@quarry/telemetry';
import type { StorageLimits } from './core/storage-quota.js';
import { createPlanReferencesClient } from './plans.js';
import type { UrlImportOptions } from './config.js';
import { targetPolicy } from './core/url-targets.js';
import { createArtifactService } from './service.js';
import { URL_FETCH_DEFAULTS, type UrlFetchSettings } from './web/fetch-url.js';
import type { ArtifactDatabase } from './store/schema.js';

export interface ArtifactStoreOptions extends ServiceOptions {
  /** App-role connection (RLS applies). */
  databaseUrl: string;
  identityKey: string;
  /** Also accept service accounts' tokens from this issuer (QUARRY_SERVICE_TOKEN_ISSUER). */
  serviceTokens?: ServiceTokenIssuer;
  /** gRPC port (0 = any free port). */
  port: number;
  /** host:port of the plan engine (or the engine in this process), which checks plan and step references. */
  planEngineAddress: ServiceTarget;
  /** Bytes of text a read tool returns when the caller does not say (default 262144). */
  readBudgetBytes?: number;
  /** Largest source document import_document accepts, in bytes (default 64 MiB). */
  documentMaxBytes?: number;
  /** What import_url may fetch, how much and how long (QUARRY_IMPORT_URL_*; default: public targets only, 32 MiB, 30 s, 5 redirects). */
  urlImports?: UrlImportOptions;
  /** Every org's storage limits unless the operator set its own (default: none). */
  storageQuotas?: StorageLimits;
}

/** What a read returns by default: enough for a long report, far below what a client chokes on (ADR 0024). */
const DEFAULT_READ_BUDGET_BYTES = 256 * 1024;
const DEFAULT_DOCUMENT_MAX_BYTES = 64 * 1024 * 1024;
/** Room in a gRPC message for the fields around a document's bytes. */
const MESSAGE_OVERHEAD_BYTES = 1024 * 1024;

export type ArtifactStore = ListeningService;

/** The fetcher's settings from the operator's: never more bytes than a document may have. */
function urlFetchSettings(options: UrlImportOptions | undefined, documentMaxBytes: number): Partial<UrlFetchSettings> {
  return {
    ...(options && {
      policy: targetPolicy(options.allowPrivate, options.allow),
      timeoutMs: options.timeoutMs,
      maxRedirects: options.maxRedirects,
    }),
    maxBytes: Math.min(options?.maxBytes ?? URL_FETCH_DEFAULTS.maxBytes, documentMaxBytes),
  };
}

/**
 * Connects the database and the plan-engine client, builds the server and listens. Used by
 * `main.ts` (its own process, /metrics on METRICS_PORT) and by `quarry start` (every service in
 * one process, real gRPC).
 */
export async function startArtifactStore(options: ArtifactStoreOptions): Promise<ArtifactStore> {
  const db = createDb<ArtifactDatabase>({
    connectionString: options.databaseUrl,
    applicationName: 'quarry-artifact-store',
    max: 10,
  });
  const plans = createPlanReferencesClient({ address: options.planEngineAddress, identityKey: options.identityKey });
  const documentMaxBytes = options.documentMaxBytes ?? DEFAULT_DOCUMENT_MAX_BYTES;
  const metrics = serviceMetrics('artifact-store', options);
  const server = buildServiceServer({
    definition: artifactV1.ArtifactServiceService,
    implementation: createArtifactService({
      db,
      plans,
      reads: { budgetBytes: options.readBudgetBytes ?? DEFAULT_READ_BUDGET_BYTES },
      cursors: createCursorCodec(options.identityKey, 'artifact-store'),
      logger: options.logger,
      conversionLimits: { maxBytes: documentMaxBytes },
      urlImports: urlFetchSettings(options.urlImports, documentMaxBytes),
      storageQuotas: options.storageQuotas,
      quotaMetrics: createQuotaMetrics(metrics),
    }),
    // import_document brings a whole file in one message, and get_artifact may return one.
    serverOptions: {
      'grpc.max_receive_message_length': documentMaxBytes + MESSAGE_OVERHEAD_BYTES,
      'grpc.max_send_message_length': documentMaxBytes + MESSAGE_OVERHEAD_BYTES,
    },
    identityKey: options.identityKey,
    serviceTokens: options.serviceTokens,
    logger: options.logger,
  });
  return listenService(server, {
    ...options,
    metrics,
    release: async () => {
      plans.close();
      await db.destroy();
    },
  });
}
