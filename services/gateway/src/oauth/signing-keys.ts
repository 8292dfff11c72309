import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, type JSONWebKeySet, type JWK } from 'jose';
import { type Kysely, sql } from 'kysely';
import type { IdentityDatabase } from '../identity/schema.js';

/** The ES256 key pair every access token is signed with (and verified against by `kid`). */
async function newSigningKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: 'ES256', use: 'sig' };
}

/**
 * The embedded authorization server's signing keys, newest first: generated on first start
 * (replicas starting together agree through an advisory lock). Retired keys are kept so tokens
 * they signed verify until they expire; the newest active key signs.
 */
export async function ensureSigningKeys(db: Kysely<IdentityDatabase>): Promise<JWK[]> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext('quarry.oauth_signing_keys'))`.execute(trx);
    const existing = await trx
      .selectFrom('identity.oauth_signing_keys')
      .select(['private_jwk', 'retired_at'])
      .orderBy('created_at', 'desc')
      .execute();
    if (existing.some((k) => k.retired_at === null)) {
      const active = existing.filter((k) => k.retired_at === null);
      const retired = existing.filter((k) => k.retired_at !== null);
      return [...active, ...retired].map((k) => k.private_jwk as JWK);
    }
    const key = await newSigningKey();
    await trx
      .insertInto('identity.oauth_signing_keys')
      .values({ kid: key.kid!, private_jwk: JSON.stringify(key) })
      .execute();
    return [key, ...existing.map((k) => k.private_jwk as JWK)];
  });
}

/** Adds a new signing key and retires the others (they keep verifying the tokens they signed). */
export async function rotateSigningKey(db: Kysely<IdentityDatabase>): Promise<string> {
  const key = await newSigningKey();
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('identity.oauth_signing_keys')
      .set({ retired_at: sql`now()` })
      .where('retired_at', 'is', null)
      .execute();
    await trx
      .insertInto('identity.oauth_signing_keys')
      .values({ kid: key.kid!, private_jwk: JSON.stringify(key) })
      .execute();
  });
  return key.kid!;
}

/** The public half of every stored key, for verifying tokens. */
export async function publicKeySet(db: Kysely<IdentityDatabase>): Promise<JSONWebKeySet> {
  const rows = await db.selectFrom('identity.oauth_signing_keys').select('private_jwk').execute();
  return publicKeysOf(rows.map(({ private_jwk }) => private_jwk as JWK));
}

/** The public half of private signing keys. */
export function publicKeysOf(privateKeys: readonly JWK[]): JSONWebKeySet {
  return {
    keys: privateKeys.map(({ kty, crv, x, y, kid, alg, use }) => ({ kty, crv, x, y, kid, alg, use }) as JWK),
  };
}
