import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { searchV1 } from '@quarry/contracts';
import { createLocalJWKSet, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import {
  bearerToken,
  createGrpcServer,
  createIdentityVerifier,
  createServiceTokenVerifier,
  openUnaryChannel,
  QuarryError,
  status,
  unary,
  type CallContext,
  type CallLimits,
  type GrpcServer,
  type TokenSource,
  type UnaryChannel,
} from '../src/index.js';
import { KEY } from './fixtures/echo.js';

// The one unary call with the other credential a service accepts: a service account's bearer
// token (what @quarry/client sends). The call is the same as with a signed identity (the raw
// client's suites): a deadline on every call, counted from its start, so a slow token request
// is inside it; nothing sent once cancelled or past the deadline; the service's error back as
// the QuarryError it threw; the token source's own error as is.

const ISSUER = 'http://127.0.0.1:8080';
const { privateKey, publicKey } = await generateKeyPair('ES256');
const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };

async function accessToken(scope: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ client_id: 'qsa_1', quarry_org: 'org-1', quarry_service_account: 'etl', scope })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: 'at+jwt' })
    .setIssuer(ISSUER)
    .setAudience('urn:quarry:grpc')
    .setIssuedAt(now)
    .setExpirationTime(now + 300)
    .sign(privateKey);
}

const calls: CallContext[] = [];
let server: GrpcServer;
let address: string;

beforeAll(async () => {
  server = createGrpcServer({
    services: [
      {
        definition: searchV1.SearchServiceService,
        implementation: {
          searchSources: unary(async (request: searchV1.SearchSourcesRequest, ctx) => {
            calls.push(ctx);
            if (request.query === 'slow') await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
            return searchV1.SearchSourcesResponse.fromPartial({});
          }),
          search: unary(async () => searchV1.SearchResponse.fromPartial({})),
        },
      },
    ],
    verifier: createIdentityVerifier({ key: KEY }),
    serviceTokens: createServiceTokenVerifier({ issuer: ISSUER, keys: createLocalJWKSet({ keys: [publicJwk] }) }),
    logger: { error: () => undefined, warn: () => undefined },
  });
  address = `127.0.0.1:${await server.listen('127.0.0.1', 0)}`;
});
afterAll(() => server.shutdown(100));
beforeEach(() => {
  calls.length = 0;
});

const search = searchV1.SearchServiceService.searchSources;
const request = (query: string) => searchV1.SearchSourcesRequest.fromPartial({ query });

/** A token source counting its requests, answering after `delayMs`. */
function tokensOf(token: () => Promise<string>, delayMs = 0): TokenSource & { asked: number } {
  const source = {
    asked: 0,
    async token() {
      source.asked++;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return token();
    },
  };
  return source;
}

function channelWith(tokens: TokenSource, defaultDeadlineMs = 5_000): UnaryChannel<CallLimits> {
  return openUnaryChannel(address, { authenticate: bearerToken(tokens), defaultDeadlineMs });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe('a unary call with a bearer token', () => {
  it('sends the token, asked for on every call; the service reads the account from it', async () => {
    const tokens = tokensOf(() => accessToken('quarry:read'));
    const channel = channelWith(tokens);
    try {
      await channel.call(search, request('eskers'), {});
      await channel.call(search, request('drumlins'), {});
    } finally {
      channel.close();
    }
    expect(tokens.asked).toBe(2);
    expect(calls.map((c) => c.identity)).toEqual([
      expect.objectContaining({
        kind: 'service',
        orgId: 'org-1',
        serviceName: 'service-account:etl',
        tokenId: 'qsa_1',
      }),
      expect.objectContaining({ kind: 'service', orgId: 'org-1' }),
    ]);
  });

  it("answers with the service's QuarryError: a token it refuses, a scope the token lacks", async () => {
    const tampered = channelWith(tokensOf(async () => (await accessToken('quarry:write')).replace(/.$/, '')));
    try {
      const error = await rejection(tampered.call(search, request('x'), {}));
      expect(error).toBeInstanceOf(QuarryError);
      expect(error).toMatchObject({ code: 'SERVICE_TOKEN_REFUSED', status: status.UNAUTHENTICATED });
    } finally {
      tampered.close();
    }
    const writer = channelWith(tokensOf(() => accessToken('quarry:write')));
    try {
      expect(await rejection(writer.call(search, request('x'), {}))).toMatchObject({
        code: 'SCOPE_INSUFFICIENT',
        status: status.PERMISSION_DENIED,
      });
    } finally {
      writer.close();
    }
    expect(calls).toEqual([]);
  });

  it('counts the token request inside the deadline: past it, nothing is sent', async () => {
    const channel = channelWith(tokensOf(() => accessToken('quarry:read'), 300));
    try {
      expect(await rejection(channel.call(search, request('late'), { deadlineMs: 100 }))).toMatchObject({
        code: 'DEADLINE_EXCEEDED',
      });
    } finally {
      channel.close();
    }
    expect(calls).toEqual([]);
  });

  it('sends nothing once the signal aborted while the token was fetched', async () => {
    const channel = channelWith(tokensOf(() => accessToken('quarry:read'), 100));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 10);
    try {
      expect(await rejection(channel.call(search, request('cancelled'), { signal: controller.signal }))).toMatchObject({
        code: 'CANCELLED',
        status: status.CANCELLED,
      });
    } finally {
      channel.close();
    }
    expect(calls).toEqual([]);
  });

  it("ends a call at the channel's default deadline, and the service's handler sees it end", async () => {
    const channel = channelWith(
      tokensOf(() => accessToken('quarry:read')),
      300,
    );
    try {
      expect(await rejection(channel.call(search, request('slow'), {}))).toMatchObject({
        code: 'DEADLINE_EXCEEDED',
        status: status.DEADLINE_EXCEEDED,
      });
    } finally {
      channel.close();
    }
    expect(calls).toHaveLength(1);
    const { signal } = calls[0]!;
    await new Promise((resolve) => (signal.aborted ? resolve(undefined) : signal.addEventListener('abort', resolve)));
  });

  it("rejects with the token source's own error, before anything is sent", async () => {
    class Refused extends Error {}
    const channel = channelWith({ token: () => Promise.reject(new Refused('invalid_client')) });
    try {
      expect(await rejection(channel.call(search, request('x'), {}))).toBeInstanceOf(Refused);
    } finally {
      channel.close();
    }
    expect(calls).toEqual([]);
  });
});
