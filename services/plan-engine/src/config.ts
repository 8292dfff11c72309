import { env, loadConfig, z } from '@quarry/config';

/** Every variable the plan engine reads; validated once at startup, frozen afterwards. */
export const planEngineConfigSchema = z.object({
  HOST: env.host('127.0.0.1'),
  PORT: env.port(50051),
  DATABASE_URL: env.url().describe('PostgreSQL connection for the app role (RLS applies)'),
  QUARRY_IDENTITY_KEY: z.string().min(32, 'must be at least 32 characters (it verifies caller identity)'),
  QUARRY_STALL_THRESHOLD: env.duration('30m'),
  ARTIFACT_STORE_ADDRESS: z
    .string()
    .min(1)
    .optional()
    .describe('host:port of the artifact store (artifacts in the context tools)'),
  METRICS_HOST: env.host('0.0.0.0'),
  METRICS_PORT: env.port(9464),
  LOG_LEVEL: env.logLevel(),
  OTEL_EXPORTER_OTLP_ENDPOINT: env.url().optional(),
});

export type PlanEngineConfig = ReturnType<typeof loadPlanEngineConfig>;

export function loadPlanEngineConfig(source: Readonly<Record<string, string | undefined>> = process.env) {
  return loadConfig(planEngineConfigSchema, source);
}
