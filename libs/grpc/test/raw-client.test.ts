import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import http2 from 'node:http2';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { context, propagation, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  createGrpcServer,
  createIdentityVerifier,
  createRawClient,
  defineErrors,
  QuarryError,
  status,
  unary,
  type RawClient,
} from '../src/index.js';
import {
  alice,
  EchoServiceService,
  gatewaySigner,
  KEY,
  startEcho,
  type EchoFixture,
  type EchoRequest,
  type FailRequest,
} from './fixtures/echo.js';

// The gateway encodes and decodes messages itself from descriptors; here the fixture's
// protobuf-es serializers stand in for that. The servers are the lib's grpc-js servers.
const { echo: echoMethod, slow: slowMethod, fail: failMethod } = EchoServiceService;

const planErrors = defineErrors({
  PLAN_NOT_FOUND: { status: status.NOT_FOUND, message: (p: { planId: string }) => `Plan ${p.planId} not found` },
});

function fail(request: FailRequest): never {
  if (request.status === status.OK) throw new Error('password=hunter2');
  if (request.status === status.NOT_FOUND)
    throw planErrors.PLAN_NOT_FOUND({ planId: 'p-1' }, { details: { planId: 'p-1' } });
  throw new QuarryError(
    `TEST_${status[request.status]}`,
    request.status,
    `failed with ${status[request.status]} — 100% «raw»`,
    { status: request.status },
  );
}

let echo: EchoFixture;
let raw: RawClient;

beforeAll(async () => {
  echo = await startEcho({ fail });
  raw = createRawClient(echo.address, { signer: gatewaySigner(), defaultDeadlineMs: 5_000 });
});

afterAll(async () => {
  raw.close();
  await echo.close();
});

beforeEach(() => {
  echo.calls.length = 0;
  echo.logged.length = 0;
});

async function rejection(promise: Promise<unknown>): Promise<QuarryError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(QuarryError);
  return error as QuarryError;
}

function untilAborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    else signal.addEventListener('abort', () => resolve(signal.reason));
  });
}

const echoOf = async (client: RawClient, text: string) =>
  echoMethod.responseDeserialize(
    Buffer.from(await client.unary(echoMethod.path, echoMethod.requestSerialize({ text }), { identity: alice })),
  );

describe('the raw client', () => {
  it('sends encoded bytes with a signed identity and returns the encoded response', async () => {
    const requestBytes = echoMethod.requestSerialize({ text: 'raw hello' });
    const responseBytes = await raw.unary(echoMethod.path, requestBytes, { identity: alice });
    expect(responseBytes).toBeInstanceOf(Uint8Array);
    expect(echoMethod.responseDeserialize(Buffer.from(responseBytes))).toEqual({
      text: 'raw hello',
      kind: 'user',
      orgId: 'org-1',
      userId: 'user-alice',
      tokenId: 'tok-1',
      serviceName: '',
      requestId: 'req-1',
    });
    expect(echo.calls.at(-1)!.identity).toEqual(alice);
  });

  it('accepts a plain Uint8Array view into a larger buffer', async () => {
    const encoded = echoMethod.requestSerialize({ text: 'in a view' });
    const backing = new Uint8Array(encoded.length + 8);
    backing.set(encoded, 4);
    const view = backing.subarray(4, 4 + encoded.length);
    const response = echoMethod.responseDeserialize(
      Buffer.from(await raw.unary(echoMethod.path, view, { identity: alice })),
    );
    expect(response.text).toBe('in a view');
  });

  it('sends and receives an empty message', async () => {
    const response = await raw.unary(echoMethod.path, new Uint8Array(), { identity: alice });
    expect(echoMethod.responseDeserialize(Buffer.from(response)).text).toBe('');
  });

  it('carries many calls at once over one connection, each answered with its own response', async () => {
    const texts = Array.from({ length: 200 }, (_, i) => `call ${i} ${'x'.repeat(i * 50)}`);
    const answers = await Promise.all(texts.map((text) => echoOf(raw, text)));
    expect(answers.map((a) => a.text)).toEqual(texts);
  });

  it('reports a method the server does not have as UNIMPLEMENTED', async () => {
    const error = await rejection(raw.unary('/quarry.test.v1.EchoService/Nope', new Uint8Array(), { identity: alice }));
    expect(error).toMatchObject({ code: 'UNIMPLEMENTED', status: status.UNIMPLEMENTED });
  });
});

describe('deadlines and cancellation', () => {
  it('sends the default deadline when the caller gives none', async () => {
    const before = Date.now();
    await echoOf(raw, 'hi');
    const { deadline } = echo.calls[0]!;
    expect(deadline!.getTime()).toBeGreaterThan(before + 4_000);
    expect(deadline!.getTime()).toBeLessThanOrEqual(Date.now() + 5_000);
  });

  it('takes the earlier of deadlineMs and an absolute deadline', async () => {
    const inherited = new Date(Date.now() + 1_500);
    await raw.unary(echoMethod.path, echoMethod.requestSerialize({ text: 'hi' }), {
      identity: alice,
      deadlineMs: 60_000,
      deadline: inherited,
    });
    expect(Math.abs(echo.calls[0]!.deadline!.getTime() - inherited.getTime())).toBeLessThan(100);
  });

  it('gives DEADLINE_EXCEEDED when the deadline passes, and the handler’s signal aborts', async () => {
    const started = Date.now();
    const slow = raw.unary(slowMethod.path, slowMethod.requestSerialize({ delayMs: 10_000 }), {
      identity: alice,
      deadlineMs: 100,
    });
    expect(await rejection(slow)).toMatchObject({ code: 'DEADLINE_EXCEEDED', status: status.DEADLINE_EXCEEDED });
    expect(Date.now() - started).toBeLessThan(2_000);
    const reason = await untilAborted(echo.calls[0]!.signal);
    expect(['DEADLINE_EXCEEDED', 'CANCELLED']).toContain((reason as QuarryError).code);
  });

  it('fails at once, sending nothing, when an absolute deadline has already passed', async () => {
    const error = await rejection(
      raw.unary(echoMethod.path, new Uint8Array(), { identity: alice, deadline: new Date(Date.now() - 10) }),
    );
    expect(error.code).toBe('DEADLINE_EXCEEDED');
    expect(echo.calls).toHaveLength(0);
  });

  it('is cancelled on both sides when the caller aborts', async () => {
    const controller = new AbortController();
    const pending = raw.unary(slowMethod.path, slowMethod.requestSerialize({ delayMs: 10_000 }), {
      identity: alice,
      signal: controller.signal,
    });
    while (echo.calls.length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    expect(await rejection(pending)).toMatchObject({ code: 'CANCELLED', status: status.CANCELLED });
    expect(await untilAborted(echo.calls[0]!.signal)).toMatchObject({ code: 'CANCELLED' });
  });

  it('sends nothing when the signal is already aborted', async () => {
    const error = await rejection(
      raw.unary(echoMethod.path, new Uint8Array(), { identity: alice, signal: AbortSignal.abort() }),
    );
    expect(error.code).toBe('CANCELLED');
    expect(echo.calls).toHaveLength(0);
  });
});

describe('errors on the wire', () => {
  const statuses = Object.values(status).filter((s): s is status => typeof s === 'number' && s !== status.OK);

  it.each(statuses.map((s) => [status[s], s] as const))(
    'a thrown %s QuarryError reaches the caller unchanged',
    async (_name, s) => {
      const error = await rejection(
        raw.unary(failMethod.path, failMethod.requestSerialize({ status: s }), { identity: alice }),
      );
      if (s === status.NOT_FOUND) {
        expect(planErrors.PLAN_NOT_FOUND.is(error)).toBe(true);
        expect(error).toMatchObject({ status: s, message: 'Plan p-1 not found', details: { planId: 'p-1' } });
      } else {
        expect(error).toMatchObject({
          code: `TEST_${status[s]}`,
          status: s,
          message: `failed with ${status[s]} — 100% «raw»`,
          details: { status: s },
        });
      }
    },
  );

  it('an unexpected server error is INTERNAL with the server’s generic message', async () => {
    const error = await rejection(
      raw.unary(failMethod.path, failMethod.requestSerialize({ status: status.OK }), { identity: alice }),
    );
    expect(error).toMatchObject({
      code: 'INTERNAL',
      status: status.INTERNAL,
      message: 'Internal error',
      details: { requestId: 'req-1' },
    });
  });

  it('an unreachable server is SERVICE_UNAVAILABLE, naming the cause', async () => {
    const nowhere = createRawClient('127.0.0.1:1', { signer: gatewaySigner() });
    const error = await rejection(
      nowhere.unary(echoMethod.path, new Uint8Array(), { identity: alice, deadlineMs: 2_000 }),
    );
    expect(error).toMatchObject({ status: status.UNAVAILABLE, code: 'SERVICE_UNAVAILABLE' });
    expect(error.message).toMatch(/ECONNREFUSED/);
    nowhere.close();
  });

  it('a response larger than the limit is RESOURCE_EXHAUSTED', async () => {
    const small = createRawClient(echo.address, {
      signer: gatewaySigner(),
      channelOptions: { 'grpc.max_receive_message_length': 64 },
    });
    const error = await rejection(
      small.unary(echoMethod.path, echoMethod.requestSerialize({ text: 'y'.repeat(200) }), { identity: alice }),
    );
    expect(error).toMatchObject({ status: status.RESOURCE_EXHAUSTED });
    expect((await echoOf(small, 'fits')).text).toBe('fits');
    small.close();
  });

  it('a request id that is no valid header value (a NUL) fails that call before sending, not the connection', async () => {
    await expect(
      raw.unary(echoMethod.path, new Uint8Array(), { identity: { ...alice, requestId: 'nul\u0000here' } }),
    ).rejects.toThrow(/illegal characters/);
    expect(echo.calls).toHaveLength(0);
    expect((await echoOf(raw, 'still fine')).text).toBe('still fine');
  });

  it('a closed client refuses calls', async () => {
    const closing = createRawClient(echo.address, { signer: gatewaySigner() });
    await echoOf(closing, 'once');
    closing.close();
    expect(await rejection(echoOf(closing, 'again'))).toMatchObject({ status: status.UNAVAILABLE });
  });
});

describe('a server that is not gRPC', () => {
  let server: http2.Http2Server;
  let address: string;
  const answers: Array<(stream: http2.ServerHttp2Stream) => void> = [];

  beforeAll(async () => {
    server = http2.createServer();
    server.on('stream', (stream) => answers.shift()!(stream));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const callWith = async (answer: (stream: http2.ServerHttp2Stream) => void, deadlineMs?: number) => {
    answers.push(answer);
    const client = createRawClient(address, { signer: gatewaySigner() });
    try {
      return await rejection(client.unary(echoMethod.path, new Uint8Array([1, 2, 3]), { identity: alice, deadlineMs }));
    } finally {
      client.close();
    }
  };

  it('maps an HTTP error status without grpc-status to its gRPC status', async () => {
    const error = await callWith((stream) => stream.respond({ ':status': 503 }, { endStream: true }));
    expect(error).toMatchObject({ status: status.UNAVAILABLE });
    expect(error.message).toMatch(/HTTP status code 503/);
  });

  it('treats a 200 without a grpc-status as INTERNAL', async () => {
    const error = await callWith((stream) => {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' });
      stream.end();
    });
    expect(error).toMatchObject({ status: status.INTERNAL });
  });

  it('refuses a compressed message it did not ask for, and a body with two messages', async () => {
    const message = (flag: number) => Buffer.from([flag, 0, 0, 0, 1, 42]);
    const answer = (body: Buffer) => (stream: http2.ServerHttp2Stream) => {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.end(body);
    };
    expect(await callWith(answer(message(1)))).toMatchObject({ status: status.INTERNAL });
    // grpc-js stops reading after a unary call's one message, so the call never completes: it
    // fails at its deadline instead of answering with either message.
    const twice = await callWith(answer(Buffer.concat([message(0), message(0)])), 300);
    expect([status.UNIMPLEMENTED, status.DEADLINE_EXCEEDED]).toContain(twice.status);
  });
});

describe('connections', () => {
  const echoAgain = unary(async (request: EchoRequest) => ({
    text: `${request.text}!`,
    kind: '',
    orgId: '',
    userId: '',
    tokenId: '',
    serviceName: '',
    requestId: '',
  }));

  it('reconnects after the server went away (GOAWAY on shutdown, then a new server on the same port)', async () => {
    const first = await startEcho({ fail });
    const client = createRawClient(first.address, { signer: gatewaySigner() });
    expect((await echoOf(client, 'before')).text).toBe('before');
    await first.close();
    expect(await rejection(echoOf(client, 'while down'))).toMatchObject({ status: status.UNAVAILABLE });
    // The restarted pod: a new server on the same address.
    const restarted = createGrpcServer({
      services: [
        { definition: EchoServiceService, implementation: { echo: echoAgain, fail: echoAgain, slow: echoAgain } },
      ],
      verifier: createIdentityVerifier({ key: KEY }),
    });
    await restarted.listen('127.0.0.1', Number(first.address.split(':')[1]));
    // The channel dials again once its reconnect backoff is over (250 ms at first, then growing
    // to at most 5 s, DEFAULT_CHANNEL_OPTIONS); a call before that still fails UNAVAILABLE.
    const started = Date.now();
    for (;;) {
      const after = await echoOf(client, 'after').catch((error: unknown) => error as QuarryError);
      if (!(after instanceof QuarryError)) {
        expect(after.text).toBe('after!');
        break;
      }
      expect(after.status).toBe(status.UNAVAILABLE);
      expect(Date.now() - started).toBeLessThan(2_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    client.close();
    await restarted.shutdown(1_000);
  });
});

describe('a peer that stops answering', () => {
  /** A TCP relay to the echo server whose open connections can be frozen: bytes dropped, sockets kept open. */
  async function startRelay(target: string) {
    const [host, port] = [target.split(':')[0]!, Number(target.split(':')[1])];
    const open: Array<{ sockets: [Socket, Socket]; frozen: boolean }> = [];
    const relay = createServer((inbound) => {
      const outbound = connect(port, host);
      const pair = { sockets: [inbound, outbound] as [Socket, Socket], frozen: false };
      open.push(pair);
      inbound.on('data', (chunk) => pair.frozen || outbound.write(chunk));
      outbound.on('data', (chunk) => pair.frozen || inbound.write(chunk));
      inbound.on('error', () => outbound.destroy());
      outbound.on('error', () => inbound.destroy());
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    return {
      address: `127.0.0.1:${(relay.address() as AddressInfo).port}`,
      freeze: () => open.forEach((pair) => (pair.frozen = true)),
      close: () =>
        new Promise<void>((resolve) => {
          open.forEach((pair) => pair.sockets.forEach((socket) => socket.destroy()));
          relay.close(() => resolve());
        }),
    };
  }

  it('is noticed by the keepalive ping, so the next call goes over a new connection', async () => {
    const relay = await startRelay(echo.address);
    const client = createRawClient(relay.address, {
      signer: gatewaySigner(),
      channelOptions: { 'grpc.keepalive_time_ms': 50, 'grpc.keepalive_timeout_ms': 50 },
    });
    try {
      expect((await echoOf(client, 'before')).text).toBe('before');
      relay.freeze();
      await new Promise((r) => setTimeout(r, 300));
      const after = await client.unary(echoMethod.path, echoMethod.requestSerialize({ text: 'after' }), {
        identity: alice,
        deadlineMs: 1_000,
      });
      expect(echoMethod.responseDeserialize(Buffer.from(after)).text).toBe('after');
    } finally {
      client.close();
      await relay.close();
    }
  });
});

describe('trace context', () => {
  const manager = new AsyncLocalStorageContextManager();

  beforeAll(() => {
    context.setGlobalContextManager(manager.enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });

  afterAll(() => {
    propagation.disable();
    context.disable();
  });

  it('propagates the active span’s trace as traceparent', async () => {
    const parent = trace.wrapSpanContext({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: TraceFlags.SAMPLED,
    });
    await context.with(trace.setSpan(context.active(), parent), () => echoOf(raw, 'traced'));
    const sent = echo.calls[0]!.metadata.get('traceparent')[0];
    expect(sent).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
  });
});
