import type { ServiceTokenIssuer } from '@quarry/config';
import { planV1 } from '@quarry/contracts';
import { createCursorCodec } from '@quarry/cursors';
import { createDb } from '@quarry/db';
import { buildServiceServer, listenService, type ListeningService, type ServiceTarget } from '@quarry/grpc';
import { serviceMetrics, type ServiceOptions } from '@quarry/telemetry';
import { createPublicKey, type KeyObject } from 'node:crypto';
import { createPlanArtifactsClient, noPlanArtifacts } from './artifacts.js';
import { startAuditCheckpointer } from './audit-checkpointer.js';
import { auditKeyId } from './core/audit-checkpoint.js';
import { registerPlanMetrics } from './metrics.js';
import { createPlanChangeListener } from './plan-changes.js';
import { createPlanService } from './service.js';
import { startStallSweep } from './stall-sweep.js';
import type { PlanDatabase } from './store/schema.js';

export interface PlanEngineOptions extends ServiceOptions {
  /** App-role connection (RLS applies). */
  databaseUrl: string;
  identityKey: string;
  /** Also accept service accounts' tokens from this issuer (QUARRY_SERVICE_TOKEN_ISSUER). */
  serviceTokens?: ServiceTokenIssuer;
  /** gRPC port (0 = any free port). */
  port: number;
  stallThresholdMs?: number;
  /** Time between stall sweeps (plan.mark_stalled_plans); default one minute. */
  stallSweepIntervalMs?: number;
  /** Ed25519 private key that signs the audit checkpoints; without it none are made. */
  auditSigningKey?: KeyObject;
  /** Time between audit checkpoint rounds; default five minutes. */
  auditCheckpointIntervalMs?: number;
  /**
   * host:port of the artifact store (or the store in this process); without it, the context tools
   * list no artifacts. A function is read at the first call (for a store started after the plan engine).
   */
  artifactStoreAddress?: ServiceTarget | (() => ServiceTarget);
}

export type PlanEngine = ListeningService;

/**
 * Connects the database and the plan-change listener, starts the stall sweep and (given a
 * signing key) the audit checkpointer, builds the server
 * and listens, with the quarry_plan_* metrics (stalled plans) in its registry. Used by `main.ts` (its own process,
 * /metrics on METRICS_PORT) and by `quarry start` (every service in one process, real gRPC).
 */
export async function startPlanEngine(options: PlanEngineOptions): Promise<PlanEngine> {
  const { logger } = options;
  const db = createDb<PlanDatabase>({
    connectionString: options.databaseUrl,
    applicationName: 'quarry-plan-engine',
    max: 10,
  });
  const changes = createPlanChangeListener({ connectionString: options.databaseUrl, logger });
  const artifacts = options.artifactStoreAddress
    ? createPlanArtifactsClient({ address: options.artifactStoreAddress, identityKey: options.identityKey })
    : noPlanArtifacts;
  const stallThresholdMs = options.stallThresholdMs ?? 30 * 60_000;
  const sweep = startStallSweep({
    db,
    thresholdMs: stallThresholdMs,
    intervalMs: options.stallSweepIntervalMs ?? 60_000,
    logger,
  });
  const signingKey = options.auditSigningKey;
  const checkpointer =
    signingKey &&
    startAuditCheckpointer({
      db,
      signingKey,
      intervalMs: options.auditCheckpointIntervalMs ?? 5 * 60_000,
      logger,
    });
  if (signingKey) {
    // The public half goes out with every start, so verifiers can have it without any secret.
    const auditPublicKey = createPublicKey(signingKey).export({ type: 'spki', format: 'pem' });
    logger.info({ auditKeyId: auditKeyId(signingKey), auditPublicKey }, 'audit checkpoints are signed with this key');
  } else logger.warn('no audit signing key (QUARRY_AUDIT_SIGNING_KEY_FILE): audit checkpoints are not signed');
  const release = async () => {
    await sweep.stop();
    await checkpointer?.stop();
    artifacts.close();
    await changes.close();
    await db.destroy();
  };
  try {
    await changes.start();
  } catch (error) {
    await release();
    throw error;
  }
  const metrics = serviceMetrics('plan-engine', options);
  registerPlanMetrics(metrics, { db, stallThresholdMs, logger });
  const server = buildServiceServer({
    definition: planV1.PlanServiceService,
    implementation: createPlanService({
      db,
      changes,
      logger,
      stallThresholdMs,
      artifacts,
      cursors: createCursorCodec(options.identityKey, 'plan-engine'),
    }),
    identityKey: options.identityKey,
    serviceTokens: options.serviceTokens,
    logger,
  });
  return listenService(server, { ...options, metrics, release });
}
