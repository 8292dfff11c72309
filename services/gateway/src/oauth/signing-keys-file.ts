import { createPrivateKey, createPublicKey, type JsonWebKey, sign, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { JWK } from 'jose';

/**
 * The embedded authorization server's signing keys from a file (a private JWKS mounted from a
 * Kubernetes Secret) instead of PostgreSQL: the first key signs, the others only verify the
 * tokens they signed. Every key is ES256 (an EC P-256 private key with a `kid`), the one
 * algorithm the server signs with and the verifiers accept; anything else is refused here, at
 * start, rather than at the first sign-in.
 */
export function readSigningKeysFile(path: string): JWK[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${path}: ${(error as Error).message}`);
  }
  return parseSigningKeySet(text);
}

function parseSigningKeySet(text: string): JWK[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('is not JSON: expected a private JWKS, {"keys": [ ... ]}');
  }
  const keys = (parsed as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0)
    throw new Error('has no keys: expected a private JWKS, {"keys": [ ... ]} with at least one key');
  const kids = new Set<string>();
  return keys.map((key: unknown, index) => {
    const jwk = (typeof key === 'object' && key !== null ? key : {}) as JWK;
    const where = `key ${index}${typeof jwk.kid === 'string' ? ` (kid ${jwk.kid})` : ''}`;
    if (typeof jwk.kid !== 'string' || jwk.kid === '') throw new Error(`${where} has no kid`);
    if (kids.has(jwk.kid)) throw new Error(`${where}: the kid is used twice`);
    kids.add(jwk.kid);
    if (jwk.kty !== 'EC' || jwk.crv !== 'P-256') throw new Error(`${where} is not an EC P-256 key (ES256 only)`);
    if (jwk.alg !== undefined && jwk.alg !== 'ES256') throw new Error(`${where} has alg ${jwk.alg}; only ES256`);
    if (typeof jwk.d !== 'string') throw new Error(`${where} is a public key: the private part (d) is missing`);
    // Node does not check x/y against d on import: sign and verify once, so a key set never
    // publishes one key and signs with another.
    const probe = Buffer.from('quarry signing key check');
    let matches: boolean;
    try {
      const { d: _private, ...publicJwk } = jwk;
      const signature = sign('sha256', probe, createPrivateKey({ key: jwk as JsonWebKey, format: 'jwk' }));
      matches = verify('sha256', probe, createPublicKey({ key: publicJwk as JsonWebKey, format: 'jwk' }), signature);
    } catch (error) {
      throw new Error(`${where} is not a valid key: ${(error as Error).message}`);
    }
    if (!matches)
      throw new Error(`${where} is not a valid key: its public part (x, y) does not match its private part (d)`);
    const { kty, crv, x, y, d, kid } = jwk;
    return { kty, crv, x, y, d, kid, alg: 'ES256', use: 'sig' };
  });
}
