import { expect } from '@jest/globals';
import { defineErrors, QuarryError, status, type RawClient } from '../src/index.js';
import { alice, EchoServiceService, type FailRequest } from './fixtures/echo.js';

// The gateway encodes and decodes messages itself from descriptors; here the fixture's
// protobuf-es serializers stand in for that. The servers are the lib's grpc-js servers.
export const { echo: echoMethod, slow: slowMethod, fail: failMethod } = EchoServiceService;

export const planErrors = defineErrors({
  PLAN_NOT_FOUND: { status: status.NOT_FOUND, message: (p: { planId: string }) => `Plan ${p.planId} not found` },
});

export function fail(request: FailRequest): never {
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

export async function rejection(promise: Promise<unknown>): Promise<QuarryError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(QuarryError);
  return error as QuarryError;
}

export function untilAborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    else signal.addEventListener('abort', () => resolve(signal.reason));
  });
}

export const echoOf = async (client: RawClient, text: string) =>
  echoMethod.responseDeserialize(
    Buffer.from(await client.unary(echoMethod.path, echoMethod.requestSerialize({ text }), { identity: alice })),
  );
