import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { PortInUseError } from '@quarry/config';
import { appUrlFrom, sql } from '@quarry/db';
import { createIdentityAdmin, gatewaySchemas } from '@quarry/gateway';
import { grantPlanMaintenance, grantPlanMetrics } from '@quarry/plan-engine';
import { backendSchemas, provisionIndexerRole, startSystem, type StartSystemOptions } from '@quarry/system';
import { createLogger } from '@quarry/telemetry';
import { createTestDatabase, serviceTransportEnv, type TestDatabase } from '@quarry/testing';

const INDEXER = { role: 'quarry_indexer', password: 'system-test-indexer' };
let database: TestDatabase;
let token: string;

beforeAll(async () => {
  database = await createTestDatabase({ schemas: [...gatewaySchemas, ...backendSchemas] });
  await provisionIndexerRole(database.admin, INDEXER);
  await grantPlanMetrics(database.admin, database.appRole);
  await grantPlanMaintenance(database.admin, database.appRole);
  const admin = createIdentityAdmin(database.admin);
  await admin.createOrg({ slug: 'acme', name: 'Acme' });
  await admin.addUser({ email: 'ada@acme.test', orgSlug: 'acme', name: 'Ada' });
  token = (await admin.createToken({ orgSlug: 'acme', email: 'ada@acme.test', name: 'system-test' })).token;
}, 60_000);
afterAll(async () => {
  await database?.drop();
});

function options(dataDir: string, env: Record<string, string> = {}): StartSystemOptions {
  return {
    databaseUrl: database.appUrl,
    indexerDatabaseUrl: appUrlFrom(database.adminUrl, INDEXER.role, INDEXER.password),
    identityKey: 'k'.repeat(48),
    dataDir,
    env: { HOST: '127.0.0.1', PORT: '0', ...serviceTransportEnv(), ...env },
    logger: createLogger({ service: 'system-test', level: 'silent' }),
    closeGraceMs: 1000,
  };
}

/** Servers this process listens with (the gateway's HTTP server, every service's gRPC server). */
const listeners = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap').length;

/** Whether a connection to host:port is refused (nothing listens there). */
function refused(address: string): Promise<boolean> {
  const [host, port] = [
    address.slice(0, address.lastIndexOf(':')),
    Number(address.slice(address.lastIndexOf(':') + 1)),
  ];
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

/** The system's connections still open to the test database (a server ends a session shortly after its client). */
async function connectionsLeft(): Promise<string[]> {
  const read = async () =>
    (
      await sql<{ name: string }>`
        select application_name as name from pg_stat_activity
        where datname = current_database() and application_name not like 'quarry-test-%'`.execute(database.admin)
    ).rows.map((r) => r.name);
  for (let tries = 0; tries < 50 && (await read()).length > 0; tries++) await sleep(100);
  return (await read()).sort();
}

async function connect(url: string): Promise<Client> {
  // The legacy era: MCP's ping request is not part of the 2026 protocol.
  const client = new Client({ name: 'system-test', version: '1' }, { versionNegotiation: { mode: 'legacy' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: { token: async () => token } }));
  return client;
}

describe('startSystem', () => {
  it('serves MCP through the gateway to every service; close() leaves nothing listening, connected or writing', async () => {
    const before = listeners();
    const dataDir = mkdtempSync(join(tmpdir(), 'quarry-system-start-'));
    const system = await startSystem(options(dataDir));
    const addresses = [`127.0.0.1:${system.port}`, ...Object.values(system.services.addresses)];
    try {
      expect(system.url).toBe(`http://127.0.0.1:${system.port}/mcp`);
      expect(system.base).toBe(`http://127.0.0.1:${system.port}`);
      expect(listeners()).toBe(before + addresses.length);
      const client = await connect(system.url);
      try {
        expect(await client.ping()).toEqual({});
        // gateway → artifact store → outbox → indexer → search indexes ← search service ← gateway.
        const store = (title: string) =>
          client.callTool({
            name: 'store_research',
            arguments: { artifactType: 'finding', title, content: {}, contentText: `${title}: basalt columns` },
          });
        expect((await store('Giant causeway')).isError).toBeFalsy();
        for (let found = false; !found; await sleep(100)) {
          const answer = await client.callTool({ name: 'search_sources', arguments: { query: 'basalt' } });
          found = JSON.stringify(answer.structuredContent).includes('Giant causeway');
        }
        // One more, so the indexer is likely writing while the system closes.
        expect((await store('Fingal cave')).isError).toBeFalsy();
      } finally {
        await client.close();
      }
    } finally {
      await system.close();
    }
    for (const address of addresses) expect(await refused(address)).toBe(true);
    expect(listeners()).toBe(before);
    expect(await connectionsLeft()).toEqual([]);
    // Nothing writes under the data directory once close() has resolved: it goes at once, for good.
    rmSync(dataDir, { recursive: true });
    await sleep(1500);
    expect(existsSync(dataDir)).toBe(false);
    await system.close(); // idempotent
  }, 120_000);

  it('refuses a busy port with PortInUseError, and stops the services it had started', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    const before = listeners();
    const dataDir = mkdtempSync(join(tmpdir(), 'quarry-system-busy-'));
    try {
      const failed = await startSystem(options(dataDir, { PORT: String(port) })).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(PortInUseError);
      expect(failed).toMatchObject({ variable: 'PORT', port });
      // The servers are closed when startSystem rejects (they no longer listen); Node drops a
      // closed server's handle from its active list in the event loop's close phase, a turn later.
      for (const deadline = Date.now() + 5_000; listeners() !== before && Date.now() < deadline;) await sleep(10);
      expect(listeners()).toBe(before);
      rmSync(dataDir, { recursive: true });
    } finally {
      blocker.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
