import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { PortInUseError } from '@quarry/config';
import { createMetrics, serveMetrics, serviceMetrics } from '@quarry/telemetry';

let blocker: Server;
let busyPort: number;
beforeAll(async () => {
  blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  busyPort = (blocker.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => blocker.close(() => resolve())));

describe('serviceMetrics', () => {
  it('is the registry given (quarry start), else one of its own with process metrics only when it serves them', async () => {
    const given = createMetrics({ service: 'search', processMetrics: false });
    expect(serviceMetrics('search', { metrics: given, metricsPort: 0 })).toBe(given);
    const served = serviceMetrics('search', { metricsPort: 9466 });
    expect(await served.registry.metrics()).toContain('process_cpu_seconds_total{service="search"}');
    expect(await serviceMetrics('search', {}).registry.metrics()).not.toContain('process_cpu_seconds_total');
  });
});

describe('serveMetrics', () => {
  it('serves the registry and the ones hosted beside it on host:port, or nothing without a port', async () => {
    const own = createMetrics({ service: 'gateway', processMetrics: false });
    own.counter('quarry_own_total', 'own').inc();
    const hosted = createMetrics({ service: 'indexer', processMetrics: false });
    hosted.gauge('quarry_hosted', 'hosted').set(2);
    const served = await serveMetrics('127.0.0.1', 0, own, [hosted.registry]);
    try {
      const body = await (await fetch(`http://127.0.0.1:${served.port}/metrics`)).text();
      expect(body).toContain('quarry_own_total{service="gateway"} 1');
      expect(body).toContain('quarry_hosted{service="indexer"} 2');
    } finally {
      await served.close();
    }
    const none = await serveMetrics('127.0.0.1', undefined, own);
    expect(none.port).toBeUndefined();
    await none.close();
  });

  it('reports a busy METRICS_PORT as a configuration error naming it', async () => {
    const attempt = serveMetrics('127.0.0.1', busyPort, createMetrics({ service: 'x', processMetrics: false }));
    await expect(attempt).rejects.toBeInstanceOf(PortInUseError);
    await expect(attempt).rejects.toThrow(`METRICS_PORT ${busyPort} is already in use on 127.0.0.1:${busyPort}`);
  });
});
