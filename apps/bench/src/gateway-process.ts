// The gateway alone in a process of its own, for the CPU phases: the bench process holds
// PostgreSQL, the services and the load, and reads this process's CPU time over IPC. With
// `planInProcess` it is the monolith instead: the plan handlers inside the gateway (monolith.ts).
// Settings: GatewayProcessSettings, from the bench process (measured-process.ts).
import { planV1 } from '@quarry/contracts';
import { createCursorCodec } from '@quarry/cursors';
import { createDb } from '@quarry/db';
import { loadGatewayConfig, startGateway, type ToolBackend } from '@quarry/gateway';
import { createIdentitySigner } from '@quarry/grpc';
import { createPlanChangeListener, type PlanDatabase } from '@quarry/plan-engine';
import { createLogger } from '@quarry/telemetry';
import { connectBackend, type GatewayClient } from './gateway-clients.js';
import { measuredProcessSettings, serveMeasuredProcess } from './measured-process.js';
import { inProcessPlanBackend } from './monolith.js';

export interface GatewayProcessSettings {
  databaseUrl: string;
  identityKey: string;
  serviceAddresses: Record<string, string>;
  client: GatewayClient;
  /** The monolith baseline: the plan service served in this process, not over gRPC. */
  planInProcess?: boolean;
}

const settings = measuredProcessSettings<GatewayProcessSettings>();

const config = loadGatewayConfig({
  DATABASE_URL: settings.databaseUrl,
  QUARRY_IDENTITY_KEY: settings.identityKey,
  HOST: '127.0.0.1',
  PORT: '0',
  QUARRY_RATE_LIMIT_PER_MINUTE: '1000000000',
});
const logger = createLogger({ service: 'bench-gateway', level: 'warn' });
const signer = createIdentitySigner({ key: config.QUARRY_IDENTITY_KEY, issuer: 'quarry-gateway' });
// The gateway's own client is what createGatewayRuntime builds; any other replaces it for every service.
const make = settings.client === 'connect' ? connectBackend : undefined;
const backends: Record<string, ToolBackend & { close(): void }> = make
  ? Object.fromEntries(
      Object.entries(settings.serviceAddresses).map(([service, address]) => [
        service,
        make(address, signer, config.QUARRY_GRPC_DEADLINE),
      ]),
    )
  : {};

// The monolith owns its pool and change listener, exactly as the plan engine's runtime does.
const monolith = settings.planInProcess
  ? {
      db: createDb<PlanDatabase>({
        connectionString: settings.databaseUrl,
        applicationName: 'quarry-bench-monolith',
        max: 10,
      }),
      changes: createPlanChangeListener({ connectionString: settings.databaseUrl, logger }),
    }
  : undefined;
if (monolith) {
  await monolith.changes.start();
  backends[`${planV1.protobufPackage}.PlanService`] = Object.assign(
    inProcessPlanBackend({
      ...monolith,
      logger,
      stallThresholdMs: 30 * 60_000,
      cursors: createCursorCodec(settings.identityKey, 'plan-engine'),
    }),
    { close() {} },
  );
}

const gateway = await startGateway({
  config,
  logger,
  serviceAddresses: settings.serviceAddresses,
  backends,
});
serveMeasuredProcess(gateway.url, async () => {
  await gateway.close();
  for (const backend of Object.values(backends)) backend.close();
  await monolith?.changes.close();
  await monolith?.db.destroy();
});
