import { describe, expect, it } from '@jest/globals';
import { createLocalJWKSet, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { createServiceTokenVerifier, QuarryError } from '../src/index.js';

// The service-account token check every service runs, offline: a local key set stands in for
// the authorization server's JWKS, and each way a token can be wrong is refused saying why.

const ISSUER = 'http://127.0.0.1:8080';
const { privateKey, publicKey } = await generateKeyPair('ES256');
const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
const verifier = createServiceTokenVerifier({ issuer: ISSUER, keys: createLocalJWKSet({ keys: [publicJwk] }) });

const claims = {
  client_id: 'qsa_0123',
  quarry_org: 'org-1',
  quarry_service_account: 'etl',
  scope: 'quarry:read quarry:write',
};

function sign(
  payload: Record<string, unknown> = claims,
  options: {
    typ?: string;
    aud?: string;
    iss?: string;
    expSeconds?: number;
    key?: typeof privateKey;
    kid?: string;
  } = {},
) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'ES256', kid: options.kid ?? 'k1', typ: options.typ ?? 'at+jwt' })
    .setIssuer(options.iss ?? ISSUER)
    .setAudience(options.aud ?? 'urn:quarry:grpc')
    .setIssuedAt(now)
    .setExpirationTime(now + (options.expSeconds ?? 300))
    .sign(options.key ?? privateKey);
}

async function reason(token: string): Promise<string> {
  const error = await verifier.verify(token).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(QuarryError);
  expect(error).toMatchObject({ code: 'SERVICE_TOKEN_REFUSED' });
  return (error as QuarryError).message;
}

describe('createServiceTokenVerifier', () => {
  it('reads the service account, its org and scopes from a valid token', async () => {
    expect(await verifier.verify(await sign())).toEqual({
      kind: 'service',
      orgId: 'org-1',
      serviceName: 'service-account:etl',
      tokenId: 'qsa_0123',
      scopes: ['quarry:read', 'quarry:write'],
    });
  });

  it('refuses expired, foreign-audience, foreign-issuer and non-access tokens, naming why', async () => {
    expect(await reason(await sign(claims, { expSeconds: -60 }))).toMatch(/has expired/);
    expect(await reason(await sign(claims, { aud: `${ISSUER}/mcp` }))).toMatch(/not issued for urn:quarry:grpc/);
    expect(await reason(await sign(claims, { iss: 'https://elsewhere.test' }))).toMatch(/another authorization server/);
    expect(await reason(await sign(claims, { typ: 'JWT' }))).toMatch(/typ/);
    expect(await reason('not.a.jwt')).toMatch(/not a valid access token/);
  });

  it('refuses a token without an org or account, and one signed with an unpublished key', async () => {
    const { quarry_org: _org, ...withoutOrg } = claims;
    expect(await reason(await sign(withoutOrg))).toMatch(/quarry_org/);
    const other = await generateKeyPair('ES256');
    expect(await reason(await sign(claims, { key: other.privateKey }))).toMatch(/signature does not verify/);
    expect(await reason(await sign(claims, { key: other.privateKey, kid: 'k2' }))).toMatch(/does not publish/);
  });
});

describe('a verified token, remembered', () => {
  it('is refused once its exp has passed, even when remembered', async () => {
    let at = Date.now();
    const clocked = createServiceTokenVerifier({
      issuer: ISSUER,
      keys: createLocalJWKSet({ keys: [publicJwk] }),
      now: () => at,
    });
    const token = await sign(claims, { expSeconds: 60 });
    await expect(clocked.verify(token)).resolves.toMatchObject({ orgId: 'org-1' });
    await expect(clocked.verify(token)).resolves.toMatchObject({ orgId: 'org-1' });
    at += 120_000;
    await expect(clocked.verify(token)).rejects.toMatchObject({ code: 'SERVICE_TOKEN_REFUSED' });
  });
});
