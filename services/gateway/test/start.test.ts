import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { ConfigError, PortInUseError } from '@quarry/config';
import { sql } from '@quarry/db';
import { createLogger, createMetrics } from '@quarry/telemetry';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { gatewaySchemas, loadGatewayConfig, startGateway } from '@quarry/gateway';

// startGateway, as main.ts (its own process: /metrics on METRICS_PORT, never on the public
// port) and `quarry start` (one process: /metrics a route of the HTTP server) use it.

let database: TestDatabase;
let blocker: Server;
let busyPort: number;
const logger = createLogger({ service: 'gateway-start-test', level: 'silent' });
/** Where the tools' services would be: never called here (gRPC channels connect on first use). */
const serviceAddresses = Object.fromEntries(
  [
    'quarry.plan.v1.PlanService',
    'quarry.artifact.v1.ArtifactService',
    'quarry.search.v1.SearchService',
    'quarry.extraction.v1.ExtractionService',
  ].map((service) => [service, '127.0.0.1:1']),
);
const config = (env: Record<string, string> = {}) =>
  loadGatewayConfig({
    DATABASE_URL: database.appUrl,
    QUARRY_IDENTITY_KEY: 'k'.repeat(48),
    PORT: '0',
    ...env,
  });

beforeAll(async () => {
  database = await createTestDatabase({ schemas: gatewaySchemas });
  blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  busyPort = (blocker.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => blocker.close(() => resolve()));
  await database?.drop();
});

describe('startGateway', () => {
  it('as its own process: /metrics on HOST:METRICS_PORT, not on the public port', async () => {
    const gateway = await startGateway({ config: config(), logger, serviceAddresses, metricsPort: 0 });
    try {
      expect(gateway.url).toBe(`http://127.0.0.1:${gateway.port}/mcp`);
      expect(gateway.address).toBe(`127.0.0.1:${gateway.port}`);
      expect((await fetch(`http://${gateway.address}/healthz`)).status).toBe(200);
      expect((await fetch(`http://${gateway.address}/metrics`)).status).toBe(404);
      const metrics = await (await fetch(`http://127.0.0.1:${gateway.metricsPort}/metrics`)).text();
      expect(metrics).toContain('# TYPE quarry_gateway_tool_calls_total counter');
      expect(metrics).toMatch(/^process_cpu_seconds_total\{service="gateway"\}/m);
    } finally {
      await gateway.close();
    }
  });

  it('inside quarry start: /metrics is a route of the HTTP server, with the hosted services appended', async () => {
    const hosted = createMetrics({ service: 'plan-engine', processMetrics: false });
    hosted.gauge('quarry_plan_stalled_plans', 'stalled').set(2);
    const gateway = await startGateway({ config: config(), logger, serviceAddresses, alsoExpose: [hosted.registry] });
    try {
      expect(gateway.metricsPort).toBeUndefined();
      const metrics = await (await fetch(`http://${gateway.address}/metrics`)).text();
      expect(metrics).toContain('quarry_plan_stalled_plans{service="plan-engine"} 2');
      expect(metrics).toContain('# TYPE quarry_gateway_tool_calls_total counter');
    } finally {
      await gateway.close();
    }
  });

  it('refuses to start without an address for every service that owns a tool, naming QUARRY_SERVICES', async () => {
    const { 'quarry.search.v1.SearchService': _search, ...withoutSearch } = serviceAddresses;
    const attempt = startGateway({ config: config(), logger, serviceAddresses: withoutSearch });
    await expect(attempt).rejects.toBeInstanceOf(ConfigError);
    await expect(attempt).rejects.toThrow(
      'QUARRY_SERVICES: no address for quarry.search.v1.SearchService (search, search_sources): add quarry.search.v1.SearchService=<host>:<port>',
    );
  });

  it('a busy PORT or METRICS_PORT is a configuration error naming it, and nothing stays open', async () => {
    const busy = startGateway({ config: config({ PORT: String(busyPort) }), logger, serviceAddresses, metricsPort: 0 });
    await expect(busy).rejects.toBeInstanceOf(PortInUseError);
    await expect(busy).rejects.toThrow(`PORT ${busyPort} is already in use on 127.0.0.1:${busyPort}`);
    const busyMetrics = startGateway({ config: config(), logger, serviceAddresses, metricsPort: busyPort });
    await expect(busyMetrics).rejects.toThrow(
      `METRICS_PORT ${busyPort} is already in use on 127.0.0.1:${busyPort} (another process listens there): set METRICS_PORT to a free port`,
    );
    // Everything it had opened is closed: no connection of the app role is left on the database.
    const open = async () =>
      (
        await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
          where datname = ${database.name} and usename = ${database.appRole}`.execute(database.admin)
      ).rows[0]!.n;
    for (let i = 0; i < 50 && (await open()) > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await open()).toBe(0);
  });
});
