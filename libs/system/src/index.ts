import { startArtifactStore, type ArtifactStore } from '@quarry/artifact-store';
import { startPlanEngine, type PlanEngine } from '@quarry/plan-engine';
import type { Logger } from 'pino';

export interface StartServicesOptions {
  /** App-role connection (RLS applies), shared by every service. */
  databaseUrl: string;
  identityKey: string;
  logger: Logger;
  host?: string;
}

/**
 * Every backend service on loopback ports, wired to each other, with the addresses the gateway
 * routes tools to (keyed by proto service). The one place that knows which services exist:
 * `quarry start`, the gateway's test harness, the CLI tests and the benchmark all use it, so a
 * new service is added here once.
 */
export async function startServices(options: StartServicesOptions) {
  const host = options.host ?? '127.0.0.1';
  const { databaseUrl, identityKey, logger } = options;
  // The plan engine and the artifact store call each other: the plan engine reads the artifact
  // store's address at its first call, after both have started.
  const planEngine: PlanEngine = await startPlanEngine({
    databaseUrl,
    identityKey,
    logger: logger.child({ service: 'plan-engine' }),
    host,
    port: 0,
    artifactStoreAddress: () => artifactStore.address,
  });
  const artifactStore: ArtifactStore = await startArtifactStore({
    databaseUrl,
    identityKey,
    planEngineAddress: planEngine.address,
    logger: logger.child({ service: 'artifact-store' }),
    host,
    port: 0,
  });
  return {
    planEngine,
    artifactStore,
    /** What the gateway's `serviceAddresses` needs. */
    addresses: {
      'quarry.plan.v1.PlanService': planEngine.address,
      'quarry.artifact.v1.ArtifactService': artifactStore.address,
    } as Readonly<Record<string, string>>,
    /** Drain every service (health NOT_SERVING first); close the gateway before this. */
    async close(graceMs = 10_000): Promise<void> {
      await artifactStore.close(graceMs);
      await planEngine.close(graceMs);
    },
  };
}

export type Services = Awaited<ReturnType<typeof startServices>>;
