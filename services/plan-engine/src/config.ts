import { DEFAULT_PORTS, databaseUrlField, env, grpcServiceFields, loadConfig, z } from '@quarry/config';

/** Every variable the plan engine reads; validated once at startup, frozen afterwards. */
const planEngineConfigSchema = z.object({
  ...grpcServiceFields(DEFAULT_PORTS['plan-engine']),
  ...databaseUrlField('the app role'),
  QUARRY_STALL_THRESHOLD: env.duration('30m'),
  QUARRY_STALL_SWEEP_INTERVAL: env.duration('1m'),
  ARTIFACT_STORE_ADDRESS: z
    .string()
    .min(1)
    .optional()
    .describe('host:port of the artifact store (artifacts in the context tools)'),
});

export function loadPlanEngineConfig(source: Readonly<Record<string, string | undefined>> = process.env) {
  return loadConfig(planEngineConfigSchema, source);
}
