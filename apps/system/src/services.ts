import type { ServiceTokenIssuer } from '@quarry/config';
import { startArtifactStore, type ArtifactStore, type UrlImportOptions } from '@quarry/artifact-store';
import {
  extractionModelsFrom,
  startExtraction,
  type Extraction,
  type ExtractionModelsConfig,
} from '@quarry/extraction';
import type { InProcessServer, ListeningService, ServiceTarget } from '@quarry/grpc';
import { startIndexer, type Indexer } from '@quarry/indexer';
import { startPlanEngine, type PlanEngine } from '@quarry/plan-engine';
import { openSearchBackends, type SearchBackends, type SearchBackendsConfig } from '@quarry/search-index';
import type { KeyObject } from 'node:crypto';
import { startSearch, type SearchRuntime } from '@quarry/search';
import { createMetrics, type Registry } from '@quarry/telemetry';
import type { Logger } from 'pino';
import { closeInOrder } from './close-in-order.js';

export interface StartServicesOptions {
  /** App-role connection (RLS applies), shared by every request-serving service. */
  databaseUrl: string;
  /** The indexer role's connection (see ServiceRoles.indexer). */
  indexerDatabaseUrl: string;
  identityKey: string;
  /** Also accept service accounts' tokens from this issuer (the gateway's public URL); signed identities only when unset. */
  serviceTokens?: ServiceTokenIssuer;
  /** Which search engines and embedder; unset URLs mean the embedded LanceDB under QUARRY_DATA_DIR. */
  search: SearchBackendsConfig;
  /** Which extraction model (EXTRACTION_PROVIDER, API keys, …); with none set, the client's model or the offline heuristic. */
  extraction: ExtractionModelsConfig;
  logger: Logger;
  host?: string;
  /** How long the outbox keeps consumed events (QUARRY_OUTBOX_RETENTION). Default 7 days. */
  outboxRetentionMs?: number;
  /** Time between outbox compactions (QUARRY_OUTBOX_COMPACTION_INTERVAL); the first runs at start. Default 10 minutes. */
  outboxCompactionIntervalMs?: number;
  /** The plan engine's audit checkpoint signing key (QUARRY_AUDIT_SIGNING_KEY_FILE); none: no checkpoints. */
  auditSigningKey?: KeyObject;
  /** Time between audit checkpoint rounds (QUARRY_AUDIT_CHECKPOINT_INTERVAL). */
  auditCheckpointIntervalMs?: number;
  /** What import_url may fetch (QUARRY_IMPORT_URL_*); default: public targets only. */
  urlImports?: UrlImportOptions;
  /** Every org's storage limits unless the operator set its own (QUOTA_STORAGE_BYTES, QUOTA_ARTIFACTS). */
  storageQuotas?: { storageBytes?: number; artifacts?: number };
  /**
   * How the services call each other: `in-process` (default) through the in-process transport,
   * `grpc` over their loopback ports (ADR 0053). Each listens on its port either way.
   */
  transport?: ServiceTransport;
}

/** How calls between services that share a process travel (QUARRY_SERVICE_TRANSPORT). */
export type ServiceTransport = 'in-process' | 'grpc';

/** Every backend service, running; see startServices. */
export interface Services {
  planEngine: PlanEngine;
  artifactStore: ArtifactStore;
  search: SearchRuntime;
  extraction: Extraction;
  indexer: Indexer;
  /** The search indexes the search service and the indexer share. */
  backends: SearchBackends;
  /** Proto service → host:port: what a gateway in another process, or `grpc` transport, dials. */
  addresses: Readonly<Record<string, string>>;
  /** Proto service → the same service in this process (the in-process transport's target). */
  inProcess: Readonly<Record<string, InProcessServer>>;
  /** Every service's registry, for the gateway's /metrics to append (`alsoExpose`). */
  registries: Registry[];
  /**
   * Drain every service (health NOT_SERVING first), the indexer first, the search indexes last;
   * close the gateway before this. Resolves once nothing writes under the data directory any
   * more (every step runs even if one before it failed, whose error is then thrown).
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * Every backend service on loopback ports, wired to each other (through the in-process transport
 * unless `transport` is `grpc`), with the addresses and in-process entries the gateway routes
 * tools to (keyed by proto service). The one place that knows which services exist:
 * `quarry start`, the gateway's test harness, the CLI tests and the benchmark all use it, so a
 * new service is added here once. Each starts exactly as its own process does (its
 * `start<Service>`), except that nothing listens for scrapes: each registers its metrics in a
 * registry of its own (`registries`), which the gateway's /metrics appends. The search service
 * and the indexer share one set of opened indexes (embedded LanceDB is a single-writer directory).
 */
export async function startServices(options: StartServicesOptions): Promise<Services> {
  const host = options.host ?? '127.0.0.1';
  const { databaseUrl, identityKey, serviceTokens, logger } = options;
  // Where one service calls another: its in-process entry, or its loopback port.
  const target = (service: ListeningService): ServiceTarget =>
    options.transport === 'grpc' ? service.address : service.inProcess;
  // One registry per service, without process metrics: the gateway's own registry reports the process.
  const registries: Registry[] = [];
  const hosted = (service: string) => {
    const metrics = createMetrics({ service, processMetrics: false });
    registries.push(metrics.registry);
    return { host, port: 0, logger: logger.child({ service }), metrics, serviceTokens };
  };
  let planEngine: PlanEngine | undefined;
  let artifactStore: ArtifactStore | undefined;
  let backends: SearchBackends | undefined;
  let search: SearchRuntime | undefined;
  let indexer: Indexer | undefined;
  let extraction: Extraction | undefined;
  // Whatever has started, stopped in this order (also when a later one fails to start): the
  // indexer stops consuming first, the shared indexes close last — once nothing writes to them,
  // and after any fold in progress has finished, so the data directory may be removed next.
  const close = (graceMs: number) =>
    closeInOrder([
      () => indexer?.close(),
      () => extraction?.close(graceMs),
      () => search?.close(graceMs),
      () => artifactStore?.close(graceMs),
      () => planEngine?.close(graceMs),
      () => backends?.close(),
    ]);
  try {
    // The plan engine and the artifact store call each other: the plan engine reads the artifact
    // store's address at its first call, after both have started.
    planEngine = await startPlanEngine({
      ...hosted('plan-engine'),
      databaseUrl,
      identityKey,
      artifactStoreAddress: () => target(artifactStore!),
      auditSigningKey: options.auditSigningKey,
      auditCheckpointIntervalMs: options.auditCheckpointIntervalMs,
    });
    artifactStore = await startArtifactStore({
      ...hosted('artifact-store'),
      databaseUrl,
      identityKey,
      planEngineAddress: target(planEngine),
      urlImports: options.urlImports,
      storageQuotas: options.storageQuotas,
    });
    backends = await openSearchBackends(options.search);
    logger.info(backends.describe, 'search backends');
    search = await startSearch({
      ...hosted('search'),
      backends,
      identityKey,
      artifactStoreAddress: target(artifactStore),
    });
    indexer = await startIndexer({
      ...hosted('indexer'),
      databaseUrl: options.indexerDatabaseUrl,
      backends,
      outboxRetentionMs: options.outboxRetentionMs,
      outboxCompactionIntervalMs: options.outboxCompactionIntervalMs,
    });
    const models = extractionModelsFrom(options.extraction);
    logger.info(
      { provider: models.provider, serverProviders: Object.keys(models.providers), sampling: models.samplingEnabled },
      'extraction models',
    );
    extraction = await startExtraction({
      ...hosted('extraction'),
      ...models,
      identityKey,
      artifactStoreAddress: target(artifactStore),
      databaseUrl,
    });
  } catch (error) {
    await close(0).catch((err: unknown) => logger.error({ err }, 'could not stop the services after a failed start'));
    throw error;
  }
  return {
    planEngine,
    artifactStore,
    search,
    extraction,
    indexer,
    backends,
    addresses: {
      'quarry.plan.v1.PlanService': planEngine.address,
      'quarry.artifact.v1.ArtifactService': artifactStore.address,
      'quarry.search.v1.SearchService': search.address,
      'quarry.extraction.v1.ExtractionService': extraction.address,
    },
    inProcess: {
      'quarry.plan.v1.PlanService': planEngine.inProcess,
      'quarry.artifact.v1.ArtifactService': artifactStore.inProcess,
      'quarry.search.v1.SearchService': search.inProcess,
      'quarry.extraction.v1.ExtractionService': extraction.inProcess,
    },
    registries,
    close: (graceMs = 10_000) => close(graceMs),
  };
}
