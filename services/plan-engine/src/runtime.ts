import { createDb } from '@quarry/db';
import { createIdentityVerifier, listenService } from '@quarry/grpc';
import type { Logger } from 'pino';
import { createPlanArtifactsClient, noPlanArtifacts } from './artifacts.js';
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
}

/**
 * Connects the database and the plan-change listener, builds the server and listens. Used by
 * `main.ts` (a container) and by `quarry start` (all services in one process, real gRPC).
 */
export async function startPlanEngine(options: PlanEngineRuntimeOptions) {
  const db = createDb<PlanDatabase>({ connectionString: options.databaseUrl, applicationName: 'quarry-plan-engine', max: 10 });
  const changes = createPlanChangeListener({ connectionString: options.databaseUrl, logger: options.logger });
  await changes.start();
  const artifacts = options.artifactStoreAddress
    ? createPlanArtifactsClient({ address: options.artifactStoreAddress, identityKey: options.identityKey })
    : noPlanArtifacts;
  const server = buildServer({
    db,
    changes,
    logger: options.logger,
    verifier: createIdentityVerifier({ key: options.identityKey }),
    stallThresholdMs: options.stallThresholdMs ?? 30 * 60_000,
    artifacts,
  });
  return listenService(server, options.host, options.port, async () => {
    artifacts.close();
    await changes.close();
    await db.destroy();
  });
}

export type PlanEngine = Awaited<ReturnType<typeof startPlanEngine>>;
