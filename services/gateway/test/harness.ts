import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appUrlFrom } from '@quarry/db';
import { createLogger } from '@quarry/telemetry';
import { createTestDatabase, serviceTransportEnv } from '@quarry/testing';
import {
  createIdentityAdmin,
  gatewaySchemas,
  type GatewayRuntimeOptions,
  type IdentityDatabase,
} from '@quarry/gateway';
import { backendSchemas, provisionIndexerRole, startSystem } from '@quarry/system';
import { grantPlanMaintenance, grantPlanMetrics } from '@quarry/plan-engine';
import { grantExtractionMaintenance } from '@quarry/extraction';
import type { Kysely } from 'kysely';

/** A real gateway on a free loopback port, over a fresh migrated database, with one member. */
export async function startTestGateway(
  env: Record<string, string> = {},
  runtimeOptions: Pick<GatewayRuntimeOptions, 'oauthFetch'> = {},
) {
  const system = await startEmptySystem(env, runtimeOptions);
  try {
    await system.admin.createOrg({ slug: 'acme', name: 'Acme Research' });
    await system.admin.addUser({ email: 'ada@acme.test', orgSlug: 'acme', name: 'Ada Lovelace' });
    const { token, id: tokenId } = await system.admin.createToken({
      orgSlug: 'acme',
      email: 'ada@acme.test',
      name: 'tests',
    });
    return { ...system, token, tokenId };
  } catch (error) {
    await system.close();
    throw error;
  }
}

/**
 * The whole system as a new installation has it: a real gateway and its services on a free
 * loopback port, over a fresh migrated database holding no organization yet (the web app's
 * first-run setup creates one).
 */
export async function startEmptySystem(
  env: Record<string, string> = {},
  runtimeOptions: Pick<GatewayRuntimeOptions, 'oauthFetch'> = {},
) {
  const database = await createTestDatabase({ schemas: [...gatewaySchemas, ...backendSchemas] });
  const indexerRole = { role: 'quarry_indexer', password: 'indexer-test-password' };
  await provisionIndexerRole(database.admin, indexerRole);
  await grantPlanMetrics(database.admin, database.appRole);
  await grantPlanMaintenance(database.admin, database.appRole);
  await grantExtractionMaintenance(database.admin, database.appRole);
  const dataDir = mkdtempSync(join(tmpdir(), 'quarry-gateway-test-'));
  const admin = createIdentityAdmin(database.admin as Kysely<IdentityDatabase>);
  const system = await startSystem({
    databaseUrl: database.appUrl,
    indexerDatabaseUrl: appUrlFrom(database.adminUrl, indexerRole.role, indexerRole.password),
    identityKey: 'k'.repeat(48),
    dataDir,
    env: { HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent', ...serviceTransportEnv(), ...env },
    logger: createLogger({ service: 'gateway-test', level: 'silent' }),
    // With a known public URL the services also accept service accounts' tokens from the embedded authorization server.
    serviceAccounts: Boolean(env.QUARRY_PUBLIC_URL),
    closeGraceMs: 1000,
    oauthFetch: runtimeOptions.oauthFetch,
  }).catch(async (error: unknown) => {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  });
  return {
    base: system.base,
    url: system.url,
    admin,
    database,
    runtime: system.runtime,
    services: system.services,
    async close() {
      // The system's close resolves once the indexer and the search indexes are closed: the directory may go.
      await system.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
