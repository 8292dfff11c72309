import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import * as grpc from '@grpc/grpc-js';
import { UnsecuredJWT } from 'jose';
import {
  createGrpcClient,
  createGrpcServer,
  createIdentitySigner,
  createIdentityVerifier,
  defineErrors,
  fromGrpcError,
  IDENTITY_METADATA_KEY,
  QuarryError,
  REQUEST_ID_METADATA_KEY,
  status,
  unary,
  type CallContext,
  type GrpcClient,
} from '../src/index.js';
import {
  alice,
  EchoServiceClient,
  EchoServiceService,
  gatewaySigner,
  KEY,
  OTHER_KEY,
  startEcho,
  type EchoFixture,
  type FailRequest,
} from './fixtures/echo.js';

const planErrors = defineErrors({
  PLAN_NOT_FOUND: { status: status.NOT_FOUND, message: (p: { planId: string }) => `Plan ${p.planId} not found` },
});

const SECRET = 'relation "identity.tokens" does not exist; password=hunter2';

/** How the echo service's Fail method fails, driven by the request. */
function fail(request: FailRequest): never {
  if (request.status === 0) throw new Error(SECRET);
  if (request.status === status.NOT_FOUND) {
    throw planErrors.PLAN_NOT_FOUND({ planId: 'p-1' }, { details: { planId: 'p-1' } });
  }
  throw new QuarryError(`TEST_${status[request.status]}`, request.status, `failed with ${status[request.status]}`, {
    status: request.status,
  });
}

let echo: EchoFixture;
let client: GrpcClient<typeof EchoServiceService>;
let plain: grpc.Client;

beforeAll(async () => {
  echo = await startEcho({ fail });
  client = createGrpcClient(EchoServiceClient, echo.address, { signer: gatewaySigner(), defaultDeadlineMs: 5_000 });
  plain = new grpc.Client(echo.address, grpc.credentials.createInsecure());
});

afterAll(async () => {
  client.close();
  plain.close();
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

/** Call Echo with hand-made metadata, as a caller that does not use this lib would. */
function echoWith(metadata: grpc.Metadata): Promise<unknown> {
  const method = EchoServiceService.echo;
  return new Promise((resolve, reject) => {
    plain.makeUnaryRequest(
      method.path,
      method.requestSerialize,
      method.responseDeserialize,
      { text: 'hi' },
      metadata,
      { deadline: Date.now() + 5_000 },
      (error, response) => (error ? reject(fromGrpcError(error)) : resolve(response)),
    );
  });
}

function untilAborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    else signal.addEventListener('abort', () => resolve(signal.reason));
  });
}

describe('caller identity', () => {
  it('signed by the caller reaches the handler, with the request id, and without the token in ctx.metadata', async () => {
    const response = await client.call('echo', { text: 'hi' }, { identity: alice });
    expect(response).toEqual({
      text: 'hi',
      kind: 'user',
      orgId: 'org-1',
      userId: 'user-alice',
      tokenId: 'tok-1',
      serviceName: '',
      requestId: 'req-1',
    });
    expect(echo.calls).toHaveLength(1);
    const ctx = echo.calls[0]!;
    expect(ctx.identity).toEqual(alice);
    expect(ctx.method).toBe('/quarry.test.v1.EchoService/Echo');
    expect(ctx.metadata.get(IDENTITY_METADATA_KEY)).toEqual([]);
    expect(ctx.metadata.get(REQUEST_ID_METADATA_KEY)).toEqual(['req-1']);
  });

  it('of a service, signed by an accepted issuer, is accepted', async () => {
    const planEngine = createGrpcClient(EchoServiceClient, echo.address, {
      signer: createIdentitySigner({ key: KEY, issuer: 'plan-engine' }),
    });
    const identity = { kind: 'service' as const, orgId: 'org-1', serviceName: 'plan-engine', requestId: 'req-2' };
    await expect(planEngine.call('echo', { text: 'x' }, { identity })).resolves.toMatchObject({
      kind: 'service',
      serviceName: 'plan-engine',
      requestId: 'req-2',
    });
    planEngine.close();
  });

  it('signed with the wrong key is rejected as UNAUTHENTICATED before the handler runs', async () => {
    const forger = createGrpcClient(EchoServiceClient, echo.address, {
      signer: createIdentitySigner({ key: OTHER_KEY, issuer: 'gateway' }),
    });
    const error = await rejection(forger.call('echo', { text: 'hi' }, { identity: alice }));
    expect(error).toMatchObject({ status: status.UNAUTHENTICATED, code: 'IDENTITY_INVALID' });
    expect(echo.calls).toHaveLength(0);
    expect(echo.logged).toEqual([
      {
        level: 'warn',
        obj: { method: '/quarry.test.v1.EchoService/Echo', code: 'IDENTITY_INVALID' },
        msg: expect.any(String),
      },
    ]);
    forger.close();
  });

  it('from an issuer the server does not accept is rejected', async () => {
    const stranger = createGrpcClient(EchoServiceClient, echo.address, {
      signer: createIdentitySigner({ key: KEY, issuer: 'stranger' }),
    });
    const error = await rejection(stranger.call('echo', { text: 'hi' }, { identity: alice }));
    expect(error).toMatchObject({ status: status.UNAUTHENTICATED, code: 'IDENTITY_INVALID' });
    expect(echo.calls).toHaveLength(0);
    stranger.close();
  });

  it('that has expired is rejected as IDENTITY_EXPIRED', async () => {
    const twoMinutesAgo = Date.now() - 120_000;
    const late = createGrpcClient(EchoServiceClient, echo.address, {
      signer: createIdentitySigner({ key: KEY, issuer: 'gateway', now: () => twoMinutesAgo }),
    });
    const error = await rejection(late.call('echo', { text: 'hi' }, { identity: alice }));
    expect(error).toMatchObject({ status: status.UNAUTHENTICATED, code: 'IDENTITY_EXPIRED' });
    expect(echo.calls).toHaveLength(0);
    late.close();
  });

  it('sent as a bare, unsigned header is rejected', async () => {
    const bare = new grpc.Metadata();
    bare.set(IDENTITY_METADATA_KEY, JSON.stringify({ kind: 'user', orgId: 'org-1', userId: 'user-alice' }));
    expect(await rejection(echoWith(bare))).toMatchObject({ status: status.UNAUTHENTICATED, code: 'IDENTITY_INVALID' });

    const algNone = new grpc.Metadata();
    const unsecured = new UnsecuredJWT({ kind: 'user', orgId: 'org-1', userId: 'user-alice' })
      .setIssuer('gateway')
      .setAudience('quarry-grpc')
      .setIssuedAt()
      .setExpirationTime('1m')
      .encode();
    algNone.set(IDENTITY_METADATA_KEY, unsecured);
    expect(await rejection(echoWith(algNone))).toMatchObject({
      status: status.UNAUTHENTICATED,
      code: 'IDENTITY_INVALID',
    });
    expect(echo.calls).toHaveLength(0);
  });

  it('that is missing is rejected as IDENTITY_MISSING', async () => {
    const error = await rejection(echoWith(new grpc.Metadata()));
    expect(error).toMatchObject({ status: status.UNAUTHENTICATED, code: 'IDENTITY_MISSING' });
    expect(echo.calls).toHaveLength(0);
  });
});

describe('the typed client', () => {
  it('takes method names, requests and responses from the service definition', async () => {
    const response: { text: string } = await client.call('echo', { text: 'typed' }, { identity: alice });
    expect(response.text).toBe('typed');
    // @ts-expect-error -- a request of the wrong shape does not compile
    await client.call('echo', { text: 42 }, { identity: alice }).catch(() => undefined);
    // @ts-expect-error -- neither does a method the service lacks; at run time it is refused
    await expect(client.call('nope', {}, { identity: alice })).rejects.toThrow('nope is not a unary method');
  });
});

describe('registering handlers', () => {
  const verifier = createIdentityVerifier({ key: KEY });

  it('refuses a method not written with unary(), so no handler can skip the identity check', () => {
    const implementation = {
      echo: (_call: unknown, callback: grpc.sendUnaryData<unknown>) => callback(null, {}),
      fail: unary(async () => ({})),
      slow: unary(async () => ({})),
    };
    expect(() =>
      createGrpcServer({ services: [{ definition: EchoServiceService, implementation }], verifier }),
    ).toThrow('/quarry.test.v1.EchoService/Echo: implement it with unary()');
  });

  it('makes a unary() handler registered behind the lib’s back fail closed with INTERNAL', async () => {
    let called = false;
    const server = new grpc.Server();
    const handler = unary(async () => {
      called = true;
      return {};
    });
    server.addService(EchoServiceService, { echo: handler, fail: handler, slow: handler });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
    const sneaky = createGrpcClient(EchoServiceClient, `127.0.0.1:${port}`, { signer: gatewaySigner() });
    expect((await rejection(sneaky.call('echo', { text: 'hi' }, { identity: alice }))).status).toBe(status.INTERNAL);
    expect(called).toBe(false);
    sneaky.close();
    server.forceShutdown();
  });
});

describe('deadlines', () => {
  it('are set on every call: the default when the caller gives none', async () => {
    const before = Date.now();
    await client.call('echo', { text: 'hi' }, { identity: alice });
    const { deadline } = echo.calls[0]!;
    expect(deadline).toBeInstanceOf(Date);
    expect(deadline!.getTime()).toBeGreaterThan(before + 4_000);
    expect(deadline!.getTime()).toBeLessThanOrEqual(Date.now() + 5_000);
  });

  it('take the earlier of deadlineMs and an absolute deadline passed on from an incoming call', async () => {
    const inherited = new Date(Date.now() + 1_500);
    await client.call('echo', { text: 'hi' }, { identity: alice, deadlineMs: 60_000, deadline: inherited });
    const { deadline } = echo.calls[0]!;
    expect(Math.abs(deadline!.getTime() - inherited.getTime())).toBeLessThan(100);
  });

  it('fire: a slow handler gives DEADLINE_EXCEEDED and its ctx.signal aborts', async () => {
    const started = Date.now();
    const error = await rejection(client.call('slow', { delayMs: 10_000 }, { identity: alice, deadlineMs: 150 }));
    expect(error).toMatchObject({ status: status.DEADLINE_EXCEEDED, code: 'DEADLINE_EXCEEDED' });
    expect(Date.now() - started).toBeLessThan(2_000);
    const ctx: CallContext = echo.calls[0]!;
    const reason = await untilAborted(ctx.signal);
    expect(reason).toBeInstanceOf(QuarryError);
    // Whichever the server sees first: its own deadline timer or the client's RST_STREAM.
    expect(['DEADLINE_EXCEEDED', 'CANCELLED']).toContain((reason as QuarryError).code);
  });

  it('can be cut short by the caller: aborting the signal cancels the call on both sides', async () => {
    const controller = new AbortController();
    const pending = client.call('slow', { delayMs: 10_000 }, { identity: alice, signal: controller.signal });
    while (echo.calls.length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    expect(await rejection(pending)).toMatchObject({ status: status.CANCELLED, code: 'CANCELLED' });
    expect(await untilAborted(echo.calls[0]!.signal)).toMatchObject({ code: 'CANCELLED' });
  });

  it('with a signal already aborted, nothing is sent', async () => {
    const error = await rejection(
      client.call('echo', { text: 'hi' }, { identity: alice, signal: AbortSignal.abort() }),
    );
    expect(error.code).toBe('CANCELLED');
    expect(echo.calls).toHaveLength(0);
  });
});

describe('errors on the wire', () => {
  const statuses = Object.values(status).filter((s): s is status => typeof s === 'number' && s !== status.OK);

  it.each(statuses.map((s) => [status[s], s] as const))(
    'a thrown %s QuarryError reaches the client unchanged',
    async (_name, s) => {
      const error = await rejection(client.call('fail', { status: s }, { identity: alice }));
      if (s === status.NOT_FOUND) {
        expect(planErrors.PLAN_NOT_FOUND.is(error)).toBe(true);
        expect(error).toMatchObject({ status: s, message: 'Plan p-1 not found', details: { planId: 'p-1' } });
      } else {
        expect(error).toMatchObject({
          code: `TEST_${status[s]}`,
          status: s,
          message: `failed with ${status[s]}`,
          details: { status: s },
        });
      }
      expect(echo.logged).toEqual([]);
    },
  );

  it('an unexpected error becomes INTERNAL with a generic message, and is logged, not leaked', async () => {
    const error = await rejection(client.call('fail', { status: 0 }, { identity: alice }));
    expect(error).toMatchObject({ code: 'INTERNAL', status: status.INTERNAL, message: 'Internal error' });
    expect(error.details).toEqual({ requestId: 'req-1' });
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toMatch(/hunter2|identity\.tokens/);
    expect(echo.logged).toHaveLength(1);
    expect(echo.logged[0]).toMatchObject({
      level: 'error',
      obj: { requestId: 'req-1', method: '/quarry.test.v1.EchoService/Fail' },
    });
    expect((echo.logged[0]!.obj as { err: Error }).err.message).toBe(SECRET);
  });

  it('an error the server calls a dependency outage becomes DEPENDENCY_UNAVAILABLE (retryable), logged as a warning', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:5432'), { code: 'ECONNREFUSED' });
    const outage = await startEcho({
      fail: (request) => {
        throw request.status === status.UNAVAILABLE ? refused : new Error(SECRET);
      },
      isUnavailable: (error) => (error as { code?: unknown }).code === 'ECONNREFUSED',
    });
    const outageClient = createGrpcClient(EchoServiceClient, outage.address, { signer: gatewaySigner() });
    try {
      const error = await rejection(outageClient.call('fail', { status: status.UNAVAILABLE }, { identity: alice }));
      expect(error).toMatchObject({
        code: 'DEPENDENCY_UNAVAILABLE',
        status: status.UNAVAILABLE,
        message: 'The service cannot reach one of its dependencies (e.g. its database) right now; retry shortly',
        details: { requestId: 'req-1' },
      });
      expect(error.message).not.toMatch(/10\.0\.0\.7/);
      expect(outage.logged).toEqual([
        {
          level: 'warn',
          obj: expect.objectContaining({ err: refused, requestId: 'req-1' }),
          msg: 'gRPC handler could not reach a dependency',
        },
      ]);
      // Anything else is still a bug: INTERNAL, logged as an error.
      expect(await rejection(outageClient.call('fail', { status: 0 }, { identity: alice }))).toMatchObject({
        code: 'INTERNAL',
      });
      expect(outage.logged[1]).toMatchObject({ level: 'error' });
    } finally {
      outageClient.close();
      await outage.close();
    }
  });

  it('an unreachable server is SERVICE_UNAVAILABLE', async () => {
    const nowhere = createGrpcClient(EchoServiceClient, '127.0.0.1:1', { signer: gatewaySigner() });
    const error = await rejection(nowhere.call('echo', { text: 'hi' }, { identity: alice, deadlineMs: 2_000 }));
    expect(error).toMatchObject({ status: status.UNAVAILABLE, code: 'SERVICE_UNAVAILABLE' });
    nowhere.close();
  });
});
