import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appUrlFrom } from '@quarry/db';
import { createLogger } from '@quarry/telemetry';
import { createTestDatabase } from '@quarry/testing';
import {
  buildServer,
  createGatewayRuntime,
  createIdentityAdmin,
  gatewaySchemas,
  type GatewayRuntimeOptions,
  type IdentityDatabase,
  loadGatewayConfig,
} from '@quarry/gateway';
import { loadConfig } from '@quarry/config';
import { extractionModelsConfigSchema } from '@quarry/extraction';
import { searchBackendsConfigSchema } from '@quarry/search-index';
import { backendSchemas, provisionIndexerRole, startServices } from '@quarry/system';
import { grantPlanMaintenance, grantPlanMetrics } from '@quarry/plan-engine';
import type { Kysely } from 'kysely';

export type Era = 'legacy' | 'modern';

/** A real gateway on a free loopback port, over a fresh migrated database, with one member. */
export async function startTestGateway(
  env: Record<string, string> = {},
  runtimeOptions: Pick<GatewayRuntimeOptions, 'oauthFetch'> = {},
) {
  const database = await createTestDatabase({ schemas: [...gatewaySchemas, ...backendSchemas] });
  const indexerRole = { role: 'quarry_indexer', password: 'indexer-test-password' };
  await provisionIndexerRole(database.admin, indexerRole);
  await grantPlanMetrics(database.admin, database.appRole);
  await grantPlanMaintenance(database.admin, database.appRole);
  const dataDir = mkdtempSync(join(tmpdir(), 'quarry-gateway-test-'));
  const admin = createIdentityAdmin(database.admin as Kysely<IdentityDatabase>);
  await admin.createOrg({ slug: 'acme', name: 'Acme Research' });
  await admin.addUser({ email: 'ada@acme.test', orgSlug: 'acme', name: 'Ada Lovelace' });
  const { token, id: tokenId } = await admin.createToken({ orgSlug: 'acme', email: 'ada@acme.test', name: 'tests' });
  const config = loadGatewayConfig({
    DATABASE_URL: database.appUrl,
    QUARRY_IDENTITY_KEY: 'k'.repeat(48),
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const logger = createLogger({ service: 'gateway-test', level: 'silent' });
  const services = await startServices({
    databaseUrl: database.appUrl,
    indexerDatabaseUrl: appUrlFrom(database.adminUrl, indexerRole.role, indexerRole.password),
    identityKey: config.QUARRY_IDENTITY_KEY,
    // With a known public URL the services also accept service accounts' tokens from the embedded authorization server.
    serviceTokens: env.QUARRY_PUBLIC_URL ? { issuer: config.publicUrl } : undefined,
    search: loadConfig(searchBackendsConfigSchema, { QUARRY_DATA_DIR: dataDir }),
    extraction: loadConfig(extractionModelsConfigSchema, env),
    logger,
  });
  const runtime = await createGatewayRuntime({
    config,
    logger,
    serviceAddresses: services.addresses,
    alsoExpose: services.registries,
    ...runtimeOptions,
  });
  const app = await buildServer(runtime.deps);
  await app.listen({ host: '127.0.0.1', port: Number(config.PORT) });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const base = `http://127.0.0.1:${port}`;
  return {
    base,
    url: `${base}/mcp`,
    token,
    tokenId,
    admin,
    database,
    runtime,
    services,
    async close() {
      await app.close();
      await runtime.close();
      await services.close(1000);
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** An MCP client of the given protocol era, authenticated with `token`. */
export async function connectClient(url: string, token: string | undefined, era: Era): Promise<Client> {
  const client = new Client(
    { name: 'quarry-tests', version: '1.0.0' },
    { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: '2026-07-28' } } },
  );
  const transport = new StreamableHTTPClientTransport(
    new URL(url),
    token ? { authProvider: { token: async () => token } } : {},
  );
  await client.connect(transport);
  return client;
}
