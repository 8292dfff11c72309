import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { context, propagation, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  createIdentitySigner,
  createRawClient,
  Metadata,
  openUnaryChannel,
  QuarryError,
  status,
  type CallLimits,
  type RawClient,
  type ServiceTarget,
} from '../src/index.js';
import { alice, gatewaySigner, OTHER_KEY, startEcho, type EchoFixture } from './fixtures/echo.js';
import {
  echoMethod,
  echoOf,
  fail,
  failMethod,
  planErrors,
  rejection,
  slowMethod,
  untilAborted,
} from './raw-client-support.js';

// The transport contract: the raw client (the gateway's) against the lib's echo server, over each
// transport a call may take — grpc-js to its address, and in process to `server.inProcess` — with
// the same expectations: metadata and the caller's identity (and its refusal), deadlines and
// cancellation on both sides, every status and its error code, size limits, trace context.
// Servers that misbehave or go away over the network: raw-client-connections.test.ts.

let echo: EchoFixture;

beforeAll(async () => {
  echo = await startEcho({ fail });
});

afterAll(() => echo.close());

beforeEach(() => {
  echo.calls.length = 0;
  echo.logged.length = 0;
});

const TRANSPORTS = ['grpc-js', 'in-process'] as const;

describe.each(TRANSPORTS)('over %s', (transport) => {
  const target = (): ServiceTarget => (transport === 'grpc-js' ? echo.address : echo.grpc.inProcess);
  let raw: RawClient;

  beforeAll(() => {
    raw = createRawClient(target(), { signer: gatewaySigner(), defaultDeadlineMs: 5_000 });
  });

  afterAll(() => raw.close());

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
      const error = await rejection(
        raw.unary('/quarry.test.v1.EchoService/Nope', new Uint8Array(), { identity: alice }),
      );
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

    it('a response larger than the limit is RESOURCE_EXHAUSTED', async () => {
      const small = createRawClient(target(), {
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
      const closing = createRawClient(target(), { signer: gatewaySigner() });
      await echoOf(closing, 'once');
      closing.close();
      expect(await rejection(echoOf(closing, 'again'))).toMatchObject({ status: status.UNAVAILABLE });
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

  describe('the caller', () => {
    /** A channel whose credential is whatever `write` puts in the metadata. */
    const callWith = async (write: (metadata: Metadata) => void) => {
      const channel = openUnaryChannel<CallLimits>(target(), {
        authenticate: async (metadata) => write(metadata),
        defaultDeadlineMs: 5_000,
      });
      try {
        return await rejection(channel.call(echoMethod, { text: 'hi' }, {}));
      } finally {
        channel.close();
      }
    };

    it('reaches the handler with its metadata, but not its credential', async () => {
      await echoOf(raw, 'hi');
      const { metadata } = echo.calls[0]!;
      expect(metadata.get('x-quarry-request-id')).toEqual(['req-1']);
      expect(metadata.get('x-quarry-identity')).toEqual([]);
    });

    it('signed with another key is refused as IDENTITY_INVALID before the handler runs', async () => {
      const forger = createRawClient(target(), { signer: createIdentitySigner({ key: OTHER_KEY, issuer: 'gateway' }) });
      const error = await rejection(forger.unary(echoMethod.path, new Uint8Array(), { identity: alice }));
      expect(error).toMatchObject({ status: status.UNAUTHENTICATED, code: 'IDENTITY_INVALID' });
      expect(echo.calls).toHaveLength(0);
      expect(echo.logged).toEqual([
        { level: 'warn', obj: { method: echoMethod.path, code: 'IDENTITY_INVALID' }, msg: expect.any(String) },
      ]);
      forger.close();
    });

    it('without any identity is refused as IDENTITY_MISSING', async () => {
      expect(await callWith(() => undefined)).toMatchObject({
        status: status.UNAUTHENTICATED,
        code: 'IDENTITY_MISSING',
      });
      expect(echo.calls).toHaveLength(0);
    });

    it('with a bearer token, where the server takes none, is refused as SERVICE_TOKEN_REFUSED', async () => {
      const error = await callWith((metadata) => metadata.set('authorization', 'Bearer abc.def.ghi'));
      expect(error).toMatchObject({ status: status.UNAUTHENTICATED, code: 'SERVICE_TOKEN_REFUSED' });
      expect(error.message).toMatch(/accepts no service accounts/);
      expect(echo.calls).toHaveLength(0);
    });
  });
});

describe('over grpc-js only', () => {
  it('an unreachable server is SERVICE_UNAVAILABLE, naming the cause', async () => {
    const nowhere = createRawClient('127.0.0.1:1', { signer: gatewaySigner() });
    const error = await rejection(
      nowhere.unary(echoMethod.path, new Uint8Array(), { identity: alice, deadlineMs: 2_000 }),
    );
    expect(error).toMatchObject({ status: status.UNAVAILABLE, code: 'SERVICE_UNAVAILABLE' });
    expect(error.message).toMatch(/ECONNREFUSED/);
    nowhere.close();
  });
});

describe('in process only', () => {
  it('gives the handler a message and metadata of its own, not the caller’s objects', async () => {
    const request = { text: 'mine' };
    const channel = openUnaryChannel<CallLimits & { metadata?: Metadata }>(echo.grpc.inProcess, {
      authenticate: async (metadata) => {
        metadata.set('x-quarry-identity', await gatewaySigner().sign(alice));
        metadata.set('x-quarry-request-id', 'req-1');
      },
      defaultDeadlineMs: 5_000,
    });
    const response = await channel.call(echoMethod, request, {});
    expect(response.text).toBe('mine');
    echo.calls[0]!.metadata.set('x-touched', 'yes');
    expect(request).toEqual({ text: 'mine' });
    channel.close();
  });

  it('refuses calls once the server shuts down, after letting the calls in flight finish', async () => {
    const own = await startEcho();
    const client = createRawClient(own.grpc.inProcess, { signer: gatewaySigner() });
    const inFlight = client.unary(slowMethod.path, slowMethod.requestSerialize({ delayMs: 200 }), { identity: alice });
    while (own.calls.length === 0) await new Promise((r) => setTimeout(r, 5));
    const closing = own.close();
    expect(await rejection(echoOf(client, 'late'))).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    await expect(inFlight).resolves.toBeInstanceOf(Uint8Array);
    await closing;
    client.close();
  });

  it('cuts the calls still in flight when the grace ends: the handler’s signal aborts, the caller gets UNAVAILABLE', async () => {
    const own = await startEcho();
    const client = createRawClient(own.grpc.inProcess, { signer: gatewaySigner() });
    const inFlight = client.unary(slowMethod.path, slowMethod.requestSerialize({ delayMs: 10_000 }), {
      identity: alice,
    });
    while (own.calls.length === 0) await new Promise((r) => setTimeout(r, 5));
    const closing = own.grpc.shutdown(50);
    expect(await rejection(inFlight)).toMatchObject({ status: status.UNAVAILABLE });
    expect(await untilAborted(own.calls[0]!.signal)).toMatchObject({ code: 'CANCELLED' });
    await closing;
    client.close();
  });
});
