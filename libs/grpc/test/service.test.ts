import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type AddressInfo, type Server } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { PortInUseError } from '@quarry/config';
import { searchV1 } from '@quarry/contracts';
import { createMetrics } from '@quarry/telemetry';
import { service as healthService } from 'grpc-health-check';
import {
  buildServiceServer,
  createGrpcClient,
  createGrpcServer,
  createIdentitySigner,
  createIdentityVerifier,
  listenService,
  status,
  unary,
  type GrpcServer,
} from '../src/index.js';
import { alice, EchoServiceService, gatewaySigner, KEY, OTHER_KEY } from './fixtures/echo.js';

const HealthClient = grpc.makeGenericClientConstructor(healthService, 'grpc.health.v1.Health');
const quiet = { error: () => undefined, warn: () => undefined };

/** A port held by another listener for the whole file. */
let blocker: Server;
let busyPort: number;
beforeAll(async () => {
  blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  busyPort = (blocker.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => blocker.close(() => resolve())));

/** Bind `port` (0: any) on loopback and let it go again; resolves the port. */
async function freePort(port = 0): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return bound;
}

/** The search service, each rpc failing the way `fails` says. */
function searchServer(fails: () => never): GrpcServer {
  return buildServiceServer({
    definition: searchV1.SearchServiceService,
    implementation: { searchSources: unary(async () => fails()), search: unary(async () => fails()) },
    identityKey: KEY,
    logger: quiet,
  });
}

const request = searchV1.SearchSourcesRequest.fromPartial({ query: 'eskers' });

describe('buildServiceServer', () => {
  let server: GrpcServer;
  let address: string;
  const outage = () => {
    throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  };
  beforeAll(async () => {
    server = searchServer(outage);
    address = `127.0.0.1:${await server.listen('127.0.0.1', 0)}`;
  });
  afterAll(() => server.shutdown(100));

  it('answers a handler that cannot reach PostgreSQL DEPENDENCY_UNAVAILABLE (retryable), not INTERNAL', async () => {
    const client = createGrpcClient(searchV1.SearchServiceClient, address, { signer: gatewaySigner() });
    try {
      await expect(client.call('searchSources', request, { identity: alice })).rejects.toMatchObject({
        status: status.UNAVAILABLE,
        code: 'DEPENDENCY_UNAVAILABLE',
      });
    } finally {
      client.close();
    }
  });

  it('verifies the caller identity with the key it was given', async () => {
    const stranger = createIdentitySigner({ key: OTHER_KEY, issuer: 'gateway' });
    const client = createGrpcClient(searchV1.SearchServiceClient, address, { signer: stranger });
    try {
      await expect(client.call('searchSources', request, { identity: alice })).rejects.toMatchObject({
        status: status.UNAUTHENTICATED,
      });
    } finally {
      client.close();
    }
  });

  it('serves health for the whole server and for the service, without an identity', async () => {
    const health = new HealthClient(address, grpc.credentials.createInsecure());
    const check = (service: string) =>
      new Promise<{ status: string }>((resolve, reject) =>
        (health as unknown as { Check: (r: object, cb: grpc.requestCallback<{ status: string }>) => void }).Check(
          { service },
          (error, response) => (error ? reject(error) : resolve(response!)),
        ),
      );
    try {
      expect(await check('')).toEqual({ status: 'SERVING' });
      expect(await check('quarry.search.v1.SearchService')).toEqual({ status: 'SERVING' });
    } finally {
      health.close();
    }
  });
});

describe('listenService', () => {
  const reply = unary(async () => ({
    text: '',
    kind: '',
    orgId: '',
    userId: '',
    tokenId: '',
    serviceName: '',
    requestId: '',
  }));
  const echoServer = () =>
    createGrpcServer({
      services: [{ definition: EchoServiceService, implementation: { echo: reply, fail: reply, slow: reply } }],
      verifier: createIdentityVerifier({ key: KEY }),
    });

  it('listens on a free port, names its address, and releases what the service owns only after draining', async () => {
    const order: string[] = [];
    const server = echoServer();
    const shutdown = server.shutdown.bind(server);
    server.shutdown = async (graceMs) => {
      await shutdown(graceMs);
      order.push('drained');
    };
    const service = await listenService(server, {
      host: '127.0.0.1',
      port: 0,
      metrics: createMetrics({ service: 'echo' }),
      release: () => void order.push('released'),
    });
    expect(service.port).toBeGreaterThan(0);
    expect(service.address).toBe(`127.0.0.1:${service.port}`);
    expect(service.serviceNames).toContain('quarry.test.v1.EchoService');
    expect(service.metricsPort).toBeUndefined();
    await service.close(100);
    expect(order).toEqual(['drained', 'released']);
  });

  it('serves the metrics on HOST:METRICS_PORT, stopping them last', async () => {
    const metrics = createMetrics({ service: 'echo' });
    metrics.counter('quarry_echo_total', 'echoes').inc(3);
    const service = await listenService(echoServer(), { host: '127.0.0.1', port: 0, metricsPort: 0, metrics });
    const scrape = () => fetch(`http://127.0.0.1:${service.metricsPort}/metrics`).then((r) => r.text());
    expect(await scrape()).toMatch(/quarry_echo_total\{service="echo"\} 3/);
    expect(await scrape()).toContain('process_cpu_seconds_total');
    await service.close(100);
    await expect(scrape()).rejects.toThrow();
  });

  it('a busy PORT is a configuration error naming PORT; the metrics it had started stop, and the service is released', async () => {
    let released = 0;
    const metricsPort = await freePort();
    const error = await listenService(echoServer(), {
      host: '127.0.0.1',
      port: busyPort,
      metricsPort,
      metrics: createMetrics({ service: 'echo' }),
      release: () => void released++,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PortInUseError);
    expect(error).toMatchObject({ variable: 'PORT', port: busyPort });
    expect((error as Error).message).toBe(
      `Invalid configuration:\n  - PORT ${busyPort} is already in use on 127.0.0.1:${busyPort} (another process listens there): set PORT to a free port`,
    );
    expect(released).toBe(1);
    await freePort(metricsPort); // the metrics server it had started is gone
  });

  it('a busy METRICS_PORT is a configuration error naming METRICS_PORT, and the service is released', async () => {
    let released = 0;
    const error = await listenService(echoServer(), {
      host: '127.0.0.1',
      port: 0,
      metricsPort: busyPort,
      metrics: createMetrics({ service: 'echo' }),
      release: () => void released++,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PortInUseError);
    expect((error as Error).message).toContain(
      `METRICS_PORT ${busyPort} is already in use on 127.0.0.1:${busyPort} (another process listens there): set METRICS_PORT to a free port`,
    );
    expect(released).toBe(1);
  });
});
