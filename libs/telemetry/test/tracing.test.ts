import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { SpanKind, trace } from '@opentelemetry/api';
import Fastify from 'fastify';
import { fastifyOtel, InMemorySpanExporter, startTelemetry, type Telemetry } from '@quarry/telemetry';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

interface FixtureSpan {
  name: string;
  kind: SpanKind;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
}

interface FixtureResult {
  startError?: string;
  traceparent?: string;
  serverLog: Record<string, unknown>;
  pgError: string;
  spans: FixtureSpan[];
}

/**
 * Run test/fixtures/service-main.ts in a fresh `node`: module instrumentation only happens in a
 * real Node module loader, which Jest's sandbox is not, so this is how a service really starts.
 */
async function runService(mode: 'ordered' | 'unexported' | 'late'): Promise<FixtureResult> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', '../testing/src/register-ts.mjs', 'test/fixtures/service-main.ts', mode],
    { cwd: packageDir, timeout: 20_000 },
  );
  return JSON.parse(stdout) as FixtureResult;
}

describe('startTelemetry in a service process (child node process)', () => {
  let ordered: FixtureResult;
  beforeAll(async () => {
    ordered = await runService('ordered');
  });

  it('traces a gRPC call client → server under the active span and propagates traceparent', () => {
    const { spans, traceparent, serverLog } = ordered;
    const root = spans.find((s) => s.name === 'unit-of-work');
    const client = spans.find((s) => s.kind === SpanKind.CLIENT && s.name === 'grpc.quarry.test.v1.EchoService/Echo');
    const server = spans.find((s) => s.kind === SpanKind.SERVER && s.name === 'grpc.quarry.test.v1.EchoService/Echo');
    expect(root && client && server).toBeTruthy();
    if (!root || !client || !server) return;

    // One trace, linked parent → child across the wire.
    expect(new Set([root.traceId, client.traceId, server.traceId]).size).toBe(1);
    expect(root.parentSpanId).toBeUndefined();
    expect(client.parentSpanId).toBe(root.spanId);
    expect(server.parentSpanId).toBe(client.spanId);
    expect(traceparent).toBe(`00-${client.traceId}-${client.spanId}-01`);
    expect(server.attributes).toMatchObject({
      'rpc.system': 'grpc',
      'rpc.service': 'quarry.test.v1.EchoService',
      'rpc.method': 'Echo',
    });

    // A log line written in the handler belongs to the server span.
    expect(serverLog).toMatchObject({ msg: 'echo handled', trace_id: server.traceId, span_id: server.spanId });
  });

  it('traces pg (a connect to a closed port here) without exporting the password or the command line', () => {
    const { spans, pgError } = ordered;
    const root = spans.find((s) => s.name === 'unit-of-work');
    const connect = spans.find((s) => s.name === 'pg.connect');
    expect(pgError).toMatch(/ECONNREFUSED/);
    expect(connect).toMatchObject({ kind: SpanKind.CLIENT, traceId: root?.traceId, parentSpanId: root?.spanId });
    expect(connect?.attributes).toMatchObject({ 'db.system.name': 'postgresql', 'db.namespace': 'quarry' });
    expect(JSON.stringify(spans)).not.toContain('s3cret-password');
    expect(connect?.resource).toMatchObject({ 'service.name': 'fixture' });
    expect(connect?.resource).not.toHaveProperty('process.command_args');
  });

  it('does not trace SQL run under no span (background polling and sweeps make no root traces)', () => {
    const connects = ordered.spans.filter((s) => s.name === 'pg.connect');
    expect(connects).toHaveLength(1);
    expect(connects[0]?.attributes['db.namespace']).toBe('quarry');
  });

  it('without an exporter records nothing, yet still propagates context and stamps logs', async () => {
    const { spans, traceparent, serverLog } = await runService('unexported');
    expect(spans).toEqual([]);
    const [, traceId, spanId, flags] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(traceparent ?? '') ?? [];
    expect(traceId).toBeDefined();
    expect(spanId).toBeDefined();
    expect(flags).toBe('00'); // not sampled: downstream services do not record either
    expect(serverLog.trace_id).toBe(traceId);
  });

  it('refuses to start once @grpc/grpc-js or pg has been imported, because they could no longer be traced', async () => {
    const { startError } = await runService('late');
    expect(startError).toMatch(/startTelemetry\(\) must run before @grpc\/grpc-js, pg, pg-pool are imported/);
  });
});

describe('startTelemetry in-process', () => {
  let telemetry: Telemetry | undefined;
  afterEach(async () => {
    await telemetry?.shutdown();
    telemetry = undefined;
  });

  it('runs once per process, and again after shutdown', async () => {
    telemetry = startTelemetry({ service: 'twice', instrument: false });
    expect(() => startTelemetry({ service: 'twice', instrument: false })).toThrow(/already started/);
    await telemetry.shutdown();
    telemetry = startTelemetry({ service: 'twice', instrument: false });
  });

  it('exports spans over OTLP/HTTP to <endpoint>/v1/traces when an endpoint is given', async () => {
    const received: Array<{ url?: string; body: string }> = [];
    const collector = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push({ url: req.url, body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = collector.address() as AddressInfo;
      telemetry = startTelemetry({ service: 'exporting', otlpEndpoint: `http://127.0.0.1:${port}`, instrument: false });
      trace.getTracer('test').startSpan('exported-span').end();
      await telemetry.flush();
      expect(received.map((r) => r.url)).toEqual(['/v1/traces']);
      expect(received[0]?.body).toContain('exported-span');
      expect(received[0]?.body).toContain('exporting');
    } finally {
      await telemetry?.shutdown();
      telemetry = undefined;
      collector.closeAllConnections();
      await new Promise<void>((resolve) => collector.close(() => resolve()));
    }
  });
});

describe('fastifyOtel', () => {
  it('opens a server span per request that continues the caller’s trace, and skips probe paths', async () => {
    const exporter = new InMemorySpanExporter();
    const telemetry = startTelemetry({ service: 'gateway', spanExporter: exporter, instrument: false });
    const app = Fastify();
    try {
      await app.register(fastifyOtel());
      app.get('/tools/:name', async () => ({ activeTrace: trace.getActiveSpan()?.spanContext().traceId }));
      app.get('/healthz', async () => 'ok');
      app.get('/metrics', async () => 'metrics');

      const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
      const callerSpan = '00f067aa0ba902b7';
      // Over a real socket: `app.inject` needs light-my-request, which require()s ESM-only `cookie`.
      const base = await app.listen({ host: '127.0.0.1', port: 0 });
      const reply = await fetch(`${base}/tools/ping?x=1`, {
        headers: { traceparent: `00-${callerTrace}-${callerSpan}-01` },
      });
      expect(await reply.json()).toEqual({ activeTrace: callerTrace });
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      expect((await fetch(`${base}/metrics?format=text`)).status).toBe(200);
      await telemetry.flush();

      const spans = exporter.getFinishedSpans();
      const request = spans.find((s) => s.name === 'request');
      expect(request?.kind).toBe(SpanKind.SERVER);
      expect(request?.spanContext().traceId).toBe(callerTrace);
      expect(request?.parentSpanContext?.spanId).toBe(callerSpan);
      expect(request?.attributes).toMatchObject({ 'http.route': '/tools/:name', 'http.response.status_code': 200 });
      expect(spans.every((s) => s.spanContext().traceId === callerTrace)).toBe(true); // nothing from the probes
      expect(spans.some((s) => s.parentSpanContext?.spanId === request?.spanContext().spanId)).toBe(true); // handler child
    } finally {
      await app.close();
      await telemetry.shutdown();
    }
  });
});
