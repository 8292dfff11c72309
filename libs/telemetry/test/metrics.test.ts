import { afterEach, describe, expect, it } from '@jest/globals';
import { createMetrics, metricsText, startMetricsServer, type MetricsServer } from '@quarry/telemetry';

describe('createMetrics', () => {
  it('exposes counters, histograms and gauges with the service label, plus process metrics', async () => {
    const metrics = createMetrics({ service: 'gateway' });
    const calls = metrics.counter('quarry_tool_calls_total', 'Tool calls by outcome.', ['tool', 'outcome']);
    const duration = metrics.histogram('quarry_tool_call_seconds', 'Tool call duration.', ['tool'], [0.01, 0.1, 1]);
    const queue = metrics.gauge('quarry_log_queue_depth', 'Pending tool-call log rows.');
    calls.inc({ tool: 'ping', outcome: 'ok' });
    calls.inc({ tool: 'ping', outcome: 'ok' });
    duration.observe({ tool: 'ping' }, 0.05);
    queue.set(3);

    const { contentType, body } = await metricsText(metrics.registry);
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(body).toContain('# HELP quarry_tool_calls_total Tool calls by outcome.');
    expect(body).toContain('# TYPE quarry_tool_calls_total counter');
    expect(body).toContain('quarry_tool_calls_total{tool="ping",outcome="ok",service="gateway"} 2');
    expect(body).toContain('quarry_tool_call_seconds_bucket{le="0.01",service="gateway",tool="ping"} 0');
    expect(body).toContain('quarry_tool_call_seconds_bucket{le="0.1",service="gateway",tool="ping"} 1');
    expect(body).toContain('quarry_tool_call_seconds_count{service="gateway",tool="ping"} 1');
    expect(body).toContain('quarry_log_queue_depth{service="gateway"} 3');
    expect(body).toMatch(/^process_resident_memory_bytes\{service="gateway"\} \d+/m);
    expect(body).toMatch(/^nodejs_eventloop_lag_seconds\{service="gateway"\}/m);
  });

  it('keeps each service in its own registry', async () => {
    const a = createMetrics({ service: 'a' });
    const b = createMetrics({ service: 'b' });
    a.counter('quarry_same_name_total', 'Registered twice, in two registries.').inc();
    b.counter('quarry_same_name_total', 'Registered twice, in two registries.');
    expect((await metricsText(a.registry)).body).toContain('quarry_same_name_total{service="a"} 1');
    expect((await metricsText(b.registry)).body).toContain('quarry_same_name_total{service="b"} 0');
  });

  it('appends the registries of services hosted in the same process, without repeating process metrics', async () => {
    const host = createMetrics({ service: 'gateway' });
    const hosted = createMetrics({ service: 'indexer', processMetrics: false });
    hosted.gauge('quarry_indexer_lag_seconds', 'Age of the oldest unindexed event.').set(1.5);
    const { body } = await metricsText(host.registry, hosted.registry);
    expect(body).toContain('quarry_indexer_lag_seconds{service="indexer"} 1.5');
    expect(body.match(/^# TYPE process_cpu_user_seconds_total /gm)).toHaveLength(1);
    expect((await metricsText(hosted.registry)).body).not.toContain('process_cpu_user_seconds_total');
  });
});

describe('startMetricsServer', () => {
  let server: MetricsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('answers GET /metrics with the exposition and its content type, and 404 elsewhere', async () => {
    const metrics = createMetrics({ service: 'plan' });
    metrics.counter('quarry_plan_steps_total', 'Steps.').inc(5);
    server = await startMetricsServer({ registry: metrics.registry, host: '127.0.0.1', port: 0 });
    expect(server.port).toBeGreaterThan(0);
    const base = `http://127.0.0.1:${server.port}`;

    const ok = await fetch(`${base}/metrics`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe(metrics.registry.contentType);
    expect(await ok.text()).toContain('quarry_plan_steps_total{service="plan"} 5');

    expect((await fetch(`${base}/metrics?debug=1`)).status).toBe(200);
    for (const path of ['/', '/metricsx', '/healthz', '/metrics/extra']) {
      const missing = await fetch(`${base}${path}`);
      expect([path, missing.status]).toEqual([path, 404]);
      await missing.text();
    }
    expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(404);
  });

  it('stops listening on close, even with a keep-alive connection open', async () => {
    server = await startMetricsServer({
      registry: createMetrics({ service: 'x' }).registry,
      host: '127.0.0.1',
      port: 0,
    });
    const base = `http://127.0.0.1:${server.port}`;
    await (await fetch(`${base}/metrics`)).text(); // fetch keeps the socket alive
    await server.close();
    server = undefined;
    await expect(fetch(`${base}/metrics`)).rejects.toThrow();
  });
});
