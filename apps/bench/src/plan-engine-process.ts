// The plan engine alone in a process of its own, as a Kubernetes pod runs it, for the topology
// CPU phase: the gateway runs in another process, PostgreSQL and the load in the bench process.
// Settings: PlanEngineProcessSettings, from the bench process (measured-process.ts).
import { startPlanEngine } from '@quarry/plan-engine';
import { createLogger } from '@quarry/telemetry';
import { measuredProcessSettings, serveMeasuredProcess } from './measured-process.js';

export interface PlanEngineProcessSettings {
  databaseUrl: string;
  identityKey: string;
  /** The artifact store it reads context from (the bench process's). */
  artifactStoreAddress: string;
}

const settings = measuredProcessSettings<PlanEngineProcessSettings>();
const engine = await startPlanEngine({
  host: '127.0.0.1',
  port: 0,
  logger: createLogger({ service: 'bench-plan-engine', level: 'warn' }),
  databaseUrl: settings.databaseUrl,
  identityKey: settings.identityKey,
  artifactStoreAddress: settings.artifactStoreAddress,
});
serveMeasuredProcess(engine.address, () => engine.close(1_000));
