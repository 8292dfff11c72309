import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { loadGatewayConfig } from '@quarry/gateway';
import { exportJWK, generateKeyPair, type JWK } from 'jose';

// QUARRY_OAUTH_SIGNING_KEYS_FILE is read and checked when the config loads: a key set the
// embedded authorization server could not sign with stops the gateway before it listens,
// with a message naming the variable and the key at fault.

const dir = mkdtempSync(join(tmpdir(), 'quarry-signing-keys-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function privateKey(kid: string, alg: 'ES256' | 'RS256' = 'ES256'): Promise<JWK> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  return { ...(await exportJWK(privateKey)), kid };
}

let files = 0;
function load(contents: string) {
  const path = join(dir, `keys-${files++}.json`);
  writeFileSync(path, contents);
  return loadGatewayConfig({
    DATABASE_URL: 'postgres://quarry@127.0.0.1/quarry',
    QUARRY_IDENTITY_KEY: 'k'.repeat(48),
    QUARRY_OAUTH_SIGNING_KEYS_FILE: path,
  });
}

describe('QUARRY_OAUTH_SIGNING_KEYS_FILE', () => {
  it('loads a private ES256 JWKS: every key with its kid, ES256 and use sig, the first one first', async () => {
    const first = await privateKey('k-2026-11');
    const second = await privateKey('k-2026-10');
    const config = load(JSON.stringify({ keys: [first, second] }));
    expect(config.QUARRY_OAUTH_SIGNING_KEYS_FILE).toEqual([
      { ...first, alg: 'ES256', use: 'sig' },
      { ...second, alg: 'ES256', use: 'sig' },
    ]);
  });

  it('is unset by default: the keys stored in PostgreSQL sign', () => {
    const config = loadGatewayConfig({ DATABASE_URL: 'postgres://q@127.0.0.1/q', QUARRY_IDENTITY_KEY: 'k'.repeat(48) });
    expect(config.QUARRY_OAUTH_SIGNING_KEYS_FILE).toBeUndefined();
  });

  it('fails fast, naming the variable and the fault, on a key set it cannot sign with', async () => {
    const key = await privateKey('one');
    const { d: _d, ...publicOnly } = key;
    const cases: [string, RegExp][] = [
      ['{ not json', /is not JSON/],
      ['{"keys": []}', /has no keys/],
      [JSON.stringify({ keys: [{ ...key, kid: undefined }] }), /key 0 has no kid/],
      [JSON.stringify({ keys: [key, key] }), /key 1 \(kid one\): the kid is used twice/],
      [JSON.stringify({ keys: [publicOnly] }), /key 0 \(kid one\) is a public key: the private part \(d\) is missing/],
      [JSON.stringify({ keys: [await privateKey('rsa', 'RS256')] }), /key 0 \(kid rsa\) is not an EC P-256 key/],
      [JSON.stringify({ keys: [{ ...key, alg: 'ES384' }] }), /has alg ES384; only ES256/],
      [JSON.stringify({ keys: [{ ...key, d: 'AAAA' }] }), /key 0 \(kid one\) is not a valid key/],
    ];
    for (const [contents, message] of cases) {
      const error = (() => {
        try {
          load(contents);
        } catch (e) {
          return e as Error;
        }
        throw new Error(`accepted: ${contents}`);
      })();
      expect(error.message).toMatch(/QUARRY_OAUTH_SIGNING_KEYS_FILE: /);
      expect(error.message).toMatch(message);
    }
  });

  it('fails fast on a file that cannot be read', () => {
    expect(() =>
      loadGatewayConfig({
        DATABASE_URL: 'postgres://q@127.0.0.1/q',
        QUARRY_IDENTITY_KEY: 'k'.repeat(48),
        QUARRY_OAUTH_SIGNING_KEYS_FILE: join(dir, 'missing.json'),
      }),
    ).toThrow(/QUARRY_OAUTH_SIGNING_KEYS_FILE: cannot read .*missing\.json/);
  });
});
