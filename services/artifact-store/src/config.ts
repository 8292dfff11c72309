import { env, loadConfig, z } from '@quarry/config';

/** Every variable the artifact store reads; validated once at startup, frozen afterwards. */
export const artifactStoreConfigSchema = z.object({
  HOST: env.host('127.0.0.1'),
  PORT: env.port(50052),
  DATABASE_URL: env.url().describe('PostgreSQL connection for the app role (RLS applies)'),
  QUARRY_IDENTITY_KEY: z.string().min(32, 'must be at least 32 characters (it verifies caller identity)'),
  PLAN_ENGINE_ADDRESS: z.string().min(1).describe('host:port of the plan engine (checks plan and step references)'),
  LOG_LEVEL: env.logLevel(),
  OTEL_EXPORTER_OTLP_ENDPOINT: env.url().optional(),
});

export function loadArtifactStoreConfig(source: Readonly<Record<string, string | undefined>> = process.env) {
  return loadConfig(artifactStoreConfigSchema, source);
}
