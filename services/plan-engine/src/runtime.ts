import { createDb } from '@quarry/db';
import { createIdentityVerifier, listenService } from '@quarry/grpc';
import { createMetrics, startMetricsServer, type Metrics } from '@quarry/telemetry';
import type { Logger } from 'pino';
import { createPlanArtifactsClient, noPlanArtifacts } from './artifacts.js';
import type { PlanEngineConfig } from './config.js';
import { registerPlanMetrics } from './metrics.js';
import { createPlanChangeListener } from './plan-changes.js';
import { buildServer } from './server.js';
import type { PlanDatabase } from './store/schema.js';

export interface PlanEngineRuntimeOptions {
  /** App-role connection (RLS applies). */
  databaseUrl: string;
  identityKey: string;
  logger: Logger;
  host: string;
  port: number;
  stallThresholdMs?: number;
  /**
   * host:port of the artifact store; without it, the context tools list no artifacts. A
   * function is read at the first call (for an artifact store started after the plan engine).
   */
  artifactStoreAddress?: string | (() => string);
  /**
   * Register the quarry_plan_* metrics here (nothing is registered without it). The plan engine
   * never listens for scrapes itself: its own process (runPlanEngine) serves this registry on
   * METRICS_PORT, and `quarry start` has the gateway's /metrics append it.
   */
  metrics?: Metrics;
}

/**
 * Connects the database and the plan-change listener, builds the server and listens. Used by
 * `main.ts` (a container) and by `quarry start` (all services in one process, real gRPC).
 */
export async function startPlanEngine(options: PlanEngineRuntimeOptions) {
  const db = createDb<PlanDatabase>({
    connectionString: options.databaseUrl,
    applicationName: 'quarry-plan-engine',
    max: 10,
  });
  const changes = createPlanChangeListener({ connectionString: options.databaseUrl, logger: options.logger });
  await changes.start();
  const artifacts = options.artifactStoreAddress
    ? createPlanArtifactsClient({ address: options.artifactStoreAddress, identityKey: options.identityKey })
    : noPlanArtifacts;
  const stallThresholdMs = options.stallThresholdMs ?? 30 * 60_000;
  if (options.metrics) registerPlanMetrics(options.metrics, { db, stallThresholdMs, logger: options.logger });
  const server = buildServer({
    db,
    changes,
    logger: options.logger,
    verifier: createIdentityVerifier({ key: options.identityKey }),
    stallThresholdMs,
    artifacts,
  });
  return listenService(server, options.host, options.port, async () => {
    artifacts.close();
    await changes.close();
    await db.destroy();
  });
}

export type PlanEngine = Awaited<ReturnType<typeof startPlanEngine>>;

/**
 * The plan engine as its own process (main.ts): the gRPC service plus a /metrics server for its
 * registry (process metrics included) on METRICS_HOST:METRICS_PORT. close() stops serving gRPC
 * first, then metrics.
 */
export async function runPlanEngine(config: PlanEngineConfig, logger: Logger) {
  const metrics = createMetrics({ service: 'plan-engine' });
  const metricsServer = await startMetricsServer({
    registry: metrics.registry,
    host: config.METRICS_HOST,
    port: config.METRICS_PORT,
  });
  try {
    const engine = await startPlanEngine({
      databaseUrl: config.DATABASE_URL,
      identityKey: config.QUARRY_IDENTITY_KEY,
      logger,
      host: config.HOST,
      port: config.PORT,
      stallThresholdMs: config.QUARRY_STALL_THRESHOLD,
      artifactStoreAddress: config.ARTIFACT_STORE_ADDRESS,
      metrics,
    });
    return {
      address: engine.address,
      metricsPort: metricsServer.port,
      async close(graceMs?: number) {
        await engine.close(graceMs);
        await metricsServer.close();
      },
    };
  } catch (error) {
    await metricsServer.close();
    throw error;
  }
}
