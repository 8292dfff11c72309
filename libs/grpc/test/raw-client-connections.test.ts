import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import http2 from 'node:http2';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import {
  createGrpcServer,
  createIdentityVerifier,
  createRawClient,
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
} from './fixtures/echo.js';
import { echoMethod, echoOf, fail, rejection } from './raw-client-support.js';

// The raw client and servers that are not what it expects: an HTTP/2 server that is not gRPC, a
// server that goes away and comes back, a peer that stops answering.

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
