import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServiceAccountAdmin, type IdentityDatabase, type IssuedServiceAccount } from '@quarry/gateway';
import { createServiceTokenVerifier } from '@quarry/grpc';
import { createLocalJWKSet, decodeProtectedHeader, exportJWK, generateKeyPair, type JWK, jwtVerify } from 'jose';
import type { Kysely } from 'kysely';
import { freePort } from './free-port.js';
import { startGatewayOnly } from './gateway-only.js';
import { serviceToken } from './service-account-support.js';

// With QUARRY_OAUTH_SIGNING_KEYS_FILE (a private JWKS mounted from a Kubernetes Secret) the
// embedded authorization server signs with the file's first key, publishes the file's keys
// only, and stores none in PostgreSQL; the services verify its tokens through the published set
// (here with the services' own verifier, @quarry/grpc's, pointed at the gateway as they are).

type Gateway = Awaited<ReturnType<typeof startGatewayOnly>>;
let gateway: Gateway;
let account: IssuedServiceAccount;
let signing: JWK;
let previous: JWK;
const dir = mkdtempSync(join(tmpdir(), 'quarry-signing-keys-e2e-'));

async function privateKey(kid: string): Promise<JWK> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid };
}
const publicHalf = ({ d: _d, ...rest }: JWK): JWK => ({ ...rest, alg: 'ES256', use: 'sig' });

beforeAll(async () => {
  signing = await privateKey('from-secret-2');
  previous = await privateKey('from-secret-1');
  const file = join(dir, 'jwks.json');
  writeFileSync(file, JSON.stringify({ keys: [signing, previous] }));
  const port = await freePort();
  gateway = await startGatewayOnly({
    PORT: String(port),
    QUARRY_PUBLIC_URL: `http://127.0.0.1:${port}`,
    QUARRY_OAUTH_SIGNING_KEYS_FILE: file,
  });
  account = await createServiceAccountAdmin(gateway.database.admin as Kysely<IdentityDatabase>).create({
    orgSlug: 'acme',
    name: 'etl',
    scopes: 'quarry:read quarry:write',
  });
}, 120_000);
afterAll(async () => {
  await gateway?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('signing keys from a file', () => {
  it('publishes exactly the public halves of the file keys and stores none', async () => {
    const response = await fetch(`${gateway.base}/oauth/jwks`);
    const { keys } = (await response.json()) as { keys: JWK[] };
    expect(keys.map((k) => k.kid).sort()).toEqual(['from-secret-1', 'from-secret-2']);
    expect(keys.every((k) => k.d === undefined)).toBe(true);
    const stored = await (gateway.database.admin as Kysely<IdentityDatabase>)
      .selectFrom('identity.oauth_signing_keys')
      .select('kid')
      .execute();
    expect(stored).toEqual([]);
  });

  it("signs with the file's first key: the token verifies against it and the services' verifier accepts it", async () => {
    const token = await serviceToken(gateway.base, account, 'quarry:read quarry:write');
    expect(decodeProtectedHeader(token).kid).toBe('from-secret-2');
    const { payload } = await jwtVerify(token, createLocalJWKSet({ keys: [publicHalf(signing)] }), {
      issuer: gateway.base,
      audience: 'urn:quarry:grpc',
    });
    expect(payload.quarry_service_account).toBe('etl');
    await expect(
      jwtVerify(token, createLocalJWKSet({ keys: [publicHalf({ ...previous, kid: 'from-secret-2' })] })),
    ).rejects.toThrow();

    // What every service runs on a bearer token when it trusts the gateway's issuer: the keys come from /oauth/jwks.
    const caller = await createServiceTokenVerifier({ issuer: gateway.base }).verify(token);
    const acme = await gateway.admin.findOrg('acme');
    expect(caller).toMatchObject({
      kind: 'service',
      orgId: acme!.id,
      serviceName: 'service-account:etl',
      scopes: ['quarry:read', 'quarry:write'],
    });
  });
});
