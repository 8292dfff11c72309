import { grpcServiceOptionsFrom } from '@quarry/config';
import { runService } from '@quarry/telemetry';
import type { KeyObject } from 'node:crypto';
import { loadPlanEngineConfig } from './config.js';

// The plan engine as its own process (its container): gRPC on HOST:PORT, /metrics on HOST:METRICS_PORT.
await runService({
  service: 'plan-engine',
  loadConfig: loadPlanEngineConfig,
  start: async (config, logger) =>
    (await import('./runtime.js')).startPlanEngine({
      logger,
      ...grpcServiceOptionsFrom(config),
      databaseUrl: config.DATABASE_URL,
      stallThresholdMs: config.QUARRY_STALL_THRESHOLD,
      stallSweepIntervalMs: config.QUARRY_STALL_SWEEP_INTERVAL,
      auditSigningKey: config.QUARRY_AUDIT_SIGNING_KEY_FILE as KeyObject | undefined,
      auditCheckpointIntervalMs: config.QUARRY_AUDIT_CHECKPOINT_INTERVAL,
      artifactStoreAddress: config.ARTIFACT_STORE_ADDRESS,
    }),
});
