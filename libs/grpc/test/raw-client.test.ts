import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRawClient, QuarryError, status, type RawClient } from '../src/index.js';
import { alice, EchoServiceService, gatewaySigner, startEcho, type EchoFixture } from './fixtures/echo.js';

// The gateway encodes and decodes messages itself from descriptors; here proto-loader's
// (protobufjs) serializers stand in for that.
const { echo: echoMethod, slow: slowMethod } = EchoServiceService;

let echo: EchoFixture;
let raw: RawClient;

beforeAll(async () => {
  echo = await startEcho();
  raw = createRawClient(echo.address, { signer: gatewaySigner(), defaultDeadlineMs: 5_000 });
});

afterAll(async () => {
  raw.close();
  await echo.close();
});

async function rejection(promise: Promise<unknown>): Promise<QuarryError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(QuarryError);
  return error as QuarryError;
}

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
    const response = echoMethod.responseDeserialize(Buffer.from(await raw.unary(echoMethod.path, view, { identity: alice })));
    expect(response.text).toBe('in a view');
  });

  it('sets a deadline and maps errors like the typed client', async () => {
    const slow = raw.unary(slowMethod.path, slowMethod.requestSerialize({ delayMs: 10_000 }), {
      identity: alice,
      deadlineMs: 100,
    });
    expect(await rejection(slow)).toMatchObject({ code: 'DEADLINE_EXCEEDED', status: status.DEADLINE_EXCEEDED });
  });

  it('reports a method the server does not have as UNIMPLEMENTED', async () => {
    const error = await rejection(raw.unary('/quarry.test.v1.EchoService/Nope', new Uint8Array(), { identity: alice }));
    expect(error).toMatchObject({ code: 'UNIMPLEMENTED', status: status.UNIMPLEMENTED });
  });
});
