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
  type IdentityDatabase,
  loadGatewayConfig,
} from '@quarry/gateway';
import { loadConfig } from '@quarry/config';
import { extractionModelsConfigSchema } from '@quarry/extraction';
import { searchBackendsConfigSchema } from '@quarry/search-index';
import { backendSchemas, provisionIndexerRole, startServices } from '@quarry/system';
import { grantPlanMetrics } from '@quarry/plan-engine';
import type { Kysely } from 'kysely';

export type Era = 'legacy' | 'modern';

/** A real gateway on a free loopback port, over a fresh migrated database, with one member. */
export async function startTestGateway(env: Record<string, string> = {}) {
  const database = await createTestDatabase({ schemas: [...gatewaySchemas, ...backendSchemas] });
  const indexerRole = { role: 'quarry_indexer', password: 'indexer-test-password' };
  await provisionIndexerRole(database.admin, indexerRole);
  await grantPlanMetrics(database.admin, database.appRole);
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
    search: loadConfig(searchBackendsConfigSchema, { QUARRY_DATA_DIR: dataDir }),
    extraction: loadConfig(extractionModelsConfigSchema, env),
    logger,
  });
  const runtime = await createGatewayRuntime({
    config,
    logger,
    serviceAddresses: services.addresses,
    alsoExpose: services.registries,
  });
  const app = await buildServer(runtime.deps);
  await app.listen({ host: '127.0.0.1', port: 0 });
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

/** The per-request envelope a 2026-07-28 client puts in `_meta`. */
export const MODERN_ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'quarry-tests', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** A tools/call exactly as a 2026-07-28 client sends it: the MCP headers and the JSON-RPC body. */
export function modernToolCall(
  name: string,
  args: Record<string, unknown>,
  id: string | number = 1,
): { headers: Record<string, string>; body: Record<string, unknown> } {
  return {
    headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name },
    body: { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: MODERN_ENVELOPE } },
  };
}

/** A raw JSON-RPC POST, for what a well-behaved client would never send. */
export async function rawPost(url: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body,
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    const data = /^data: (.*)$/m.exec(text);
    json = data ? JSON.parse(data[1]!) : undefined;
  }
  return {
    status: response.status,
    headers: response.headers,
    text,
    json: json as { error?: { code: number; message: string; data?: { code?: string } }; result?: unknown },
  };
}

export const LEGACY_INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
