import { createDb } from '@quarry/db';
import { createIdentityVerifier, listenService } from '@quarry/grpc';
import type { Logger } from 'pino';
import { createPlanReferencesClient } from './plans.js';
import { buildServer } from './server.js';
import type { ArtifactDatabase } from './store/schema.js';

export interface ArtifactStoreRuntimeOptions {
  /** App-role connection (RLS applies). */
  databaseUrl: string;
  identityKey: string;
  /** host:port of the plan engine, which checks plan and step references. */
  planEngineAddress: string;
  logger: Logger;
  host: string;
  port: number;
}

/**
 * Connects the database and the plan-engine client, builds the server and listens. Used by
 * `main.ts` (a container) and by `quarry start` (all services in one process, real gRPC).
 */
export async function startArtifactStore(options: ArtifactStoreRuntimeOptions) {
  const db = createDb<ArtifactDatabase>({
    connectionString: options.databaseUrl,
    applicationName: 'quarry-artifact-store',
    max: 10,
  });
  const plans = createPlanReferencesClient({ address: options.planEngineAddress, identityKey: options.identityKey });
  const server = buildServer({
    db,
    plans,
    logger: options.logger,
    verifier: createIdentityVerifier({ key: options.identityKey }),
  });
  return listenService(server, options.host, options.port, async () => {
    plans.close();
    await db.destroy();
  });
}

export type ArtifactStore = Awaited<ReturnType<typeof startArtifactStore>>;
