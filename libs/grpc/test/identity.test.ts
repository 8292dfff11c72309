import { describe, expect, it } from '@jest/globals';
import { decodeJwt } from 'jose';
import { Metadata } from '@grpc/grpc-js';
import {
  createIdentitySigner,
  createIdentityVerifier,
  IDENTITY_METADATA_KEY,
  QuarryError,
  readIdentity,
  REQUEST_ID_METADATA_KEY,
  writeIdentity,
} from '../src/index.js';
import { alice, KEY, OTHER_KEY } from './fixtures/echo.js';

const { requestId: _requestId, ...alicePrincipal } = alice;

async function rejection(promise: Promise<unknown>): Promise<QuarryError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(QuarryError);
  return error as QuarryError;
}

describe('identity keys', () => {
  it('refuses keys shorter than 32 bytes, naming the problem', () => {
    expect(() => createIdentitySigner({ key: 'short', issuer: 'gateway' })).toThrow(/at least 32 bytes/);
    expect(() => createIdentityVerifier({ key: new Uint8Array(31) })).toThrow(/at least 32 bytes \(got 31\)/);
  });

  it('accepts a 32-byte Uint8Array key', async () => {
    const key = new Uint8Array(32).fill(7);
    const token = await createIdentitySigner({ key, issuer: 'gateway' }).sign(alice);
    await expect(createIdentityVerifier({ key }).verify(token)).resolves.toEqual(alicePrincipal);
  });
});

describe('identity tokens', () => {
  it('are HS256 JWTs with iss, aud quarry-grpc, iat and a 60 s default lifetime', async () => {
    const token = await createIdentitySigner({ key: KEY, issuer: 'gateway' }).sign(alice);
    const claims = decodeJwt(token);
    expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString())).toMatchObject({ alg: 'HS256' });
    expect(claims).toMatchObject({ iss: 'gateway', aud: 'quarry-grpc', ...alicePrincipal });
    expect(claims.exp! - claims.iat!).toBe(60);
    expect(claims).not.toHaveProperty('requestId');
  });

  it('round-trip a user and a service principal', async () => {
    const signer = createIdentitySigner({ key: KEY, issuer: 'plan-engine' });
    const verifier = createIdentityVerifier({ key: KEY });
    const service = { kind: 'service' as const, orgId: 'org-1', serviceName: 'plan-engine' };
    await expect(verifier.verify(await signer.sign(alice))).resolves.toEqual(alicePrincipal);
    await expect(verifier.verify(await signer.sign(service))).resolves.toEqual(service);
  });

  it('cannot be signed for an incomplete principal', async () => {
    const signer = createIdentitySigner({ key: KEY, issuer: 'gateway' });
    await expect(signer.sign({ kind: 'user', orgId: 'org-1' })).rejects.toThrow(/userId/);
    await expect(signer.sign({ kind: 'service', orgId: '', serviceName: 'x' })).rejects.toThrow(/orgId/);
  });

  it('signed with another key are IDENTITY_INVALID', async () => {
    const forged = await createIdentitySigner({ key: OTHER_KEY, issuer: 'gateway' }).sign(alice);
    const error = await rejection(createIdentityVerifier({ key: KEY }).verify(forged));
    expect(error.code).toBe('IDENTITY_INVALID');
  });

  it('from an issuer the server does not accept are IDENTITY_INVALID', async () => {
    const token = await createIdentitySigner({ key: KEY, issuer: 'intruder' }).sign(alice);
    const error = await rejection(createIdentityVerifier({ key: KEY, issuers: ['gateway'] }).verify(token));
    expect(error.code).toBe('IDENTITY_INVALID');
  });

  it('past exp + clock tolerance are IDENTITY_EXPIRED, also when the valid token was cached', async () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const signer = createIdentitySigner({ key: KEY, issuer: 'gateway', ttlSeconds: 60, now: () => now });
    const verifier = createIdentityVerifier({ key: KEY, clockToleranceSeconds: 5, now: () => now });
    const token = await signer.sign(alice);
    await expect(verifier.verify(token)).resolves.toEqual(alicePrincipal); // now cached
    now += 64_000;
    await expect(verifier.verify(token)).resolves.toEqual(alicePrincipal); // within tolerance
    now += 1_000;
    expect((await rejection(verifier.verify(token))).code).toBe('IDENTITY_EXPIRED');
    const fresh = createIdentityVerifier({ key: KEY, clockToleranceSeconds: 5, now: () => now });
    expect((await rejection(fresh.verify(token))).code).toBe('IDENTITY_EXPIRED');
  });

  it('are reused per principal for half their TTL, then re-signed', async () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const signer = createIdentitySigner({ key: KEY, issuer: 'gateway', ttlSeconds: 60, now: () => now });
    const first = await signer.sign(alice);
    now += 29_000;
    expect(await signer.sign({ ...alice, requestId: 'another-request' })).toBe(first);
    expect(await signer.sign({ ...alice, tokenId: 'tok-2' })).not.toBe(first);
    now += 1_000;
    const second = await signer.sign(alice);
    expect(second).not.toBe(first);
    expect(decodeJwt(second).iat).toBe(decodeJwt(first).iat! + 30);
  });
});

describe('identity in metadata', () => {
  it('travels as x-quarry-identity (signed) and x-quarry-request-id', async () => {
    const metadata = new Metadata();
    await writeIdentity(metadata, createIdentitySigner({ key: KEY, issuer: 'gateway' }), alice);
    expect(metadata.get(IDENTITY_METADATA_KEY)[0]).toMatch(/^ey[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(metadata.get(REQUEST_ID_METADATA_KEY)).toEqual(['req-1']);
    await expect(readIdentity(metadata, createIdentityVerifier({ key: KEY }))).resolves.toEqual(alice);
  });

  it('is IDENTITY_MISSING without a token, IDENTITY_INVALID with two', async () => {
    const verifier = createIdentityVerifier({ key: KEY });
    expect((await rejection(readIdentity(new Metadata(), verifier))).code).toBe('IDENTITY_MISSING');
    const token = await createIdentitySigner({ key: KEY, issuer: 'gateway' }).sign(alice);
    const twice = new Metadata();
    twice.add(IDENTITY_METADATA_KEY, token);
    twice.add(IDENTITY_METADATA_KEY, token);
    expect((await rejection(readIdentity(twice, verifier))).code).toBe('IDENTITY_INVALID');
  });

  it('gets a fresh request id when none (or an oversized one) is sent', async () => {
    const token = await createIdentitySigner({ key: KEY, issuer: 'gateway' }).sign(alice);
    const verifier = createIdentityVerifier({ key: KEY });
    const metadata = new Metadata();
    metadata.set(IDENTITY_METADATA_KEY, token);
    const withoutId = await readIdentity(metadata, verifier);
    expect(withoutId.requestId).toMatch(/^[0-9a-f-]{36}$/);
    metadata.set(REQUEST_ID_METADATA_KEY, 'x'.repeat(129));
    expect((await readIdentity(metadata, verifier)).requestId).toMatch(/^[0-9a-f-]{36}$/);
  });
});
