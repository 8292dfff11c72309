import { type Kysely, sql } from 'kysely';
import type { IdentityDatabase, Principal } from './schema.js';
import { hashesEqual } from './tokens.js';

/** A credential's principal as stored, and whether it has been revoked since. */
export interface Found {
  principal: Principal;
  revokedAt: Date | null;
}

/** The columns both credentials share, read with their org and user. */
interface CredentialRow {
  id: string;
  org_id: string;
  slug: string;
  user_id: string;
  email: string;
  name: string;
  scopes: string[];
  tools: string[] | null;
  revoked_at: Date | null;
}

function found(row: CredentialRow, expiresAt: Date | null): Found {
  return {
    revokedAt: row.revoked_at,
    principal: Object.freeze({
      tokenId: row.id,
      orgId: row.org_id,
      orgSlug: row.slug,
      userId: row.user_id,
      email: row.email,
      name: row.name,
      expiresAt,
      scopes: Object.freeze([...row.scopes]),
      tools: row.tools ? Object.freeze([...row.tools]) : null,
    }),
  };
}

/**
 * The personal access token whose SHA-256 is `hash`. The lookup runs before the tenant is known:
 * the `token_lookup` policy lets it read exactly the row of the token presented.
 */
export async function loadToken(db: Kysely<IdentityDatabase>, hash: Buffer): Promise<Found | undefined> {
  return db.transaction().execute(async (trx) => {
    await sql`select set_config('app.token_hash', ${hash.toString('hex')}, true)`.execute(trx);
    const row = await trx
      .selectFrom('identity.personal_access_tokens as t')
      .innerJoin('identity.organizations as o', 'o.id', 't.org_id')
      .innerJoin('identity.users as u', 'u.id', 't.user_id')
      .select([
        't.id',
        't.token_hash',
        't.org_id',
        'o.slug',
        't.user_id',
        'u.email',
        'u.name',
        't.expires_at',
        't.revoked_at',
        't.scopes',
        't.tools',
      ])
      .where('t.token_hash', '=', hash)
      .executeTakeFirst();
    if (!row || !hashesEqual(row.token_hash, hash)) return undefined;
    return found(row, row.expires_at);
  });
}

/** What a verified OAuth access token says about its caller. */
export interface AccessTokenClaims {
  /** The authorization server's grant the token was issued under. */
  grantId: string;
  userId: string;
  orgId: string;
  scopes: readonly string[];
  expiresAt: Date;
}

/**
 * The grant an access token was issued under, read in the token's org (RLS applies): a grant
 * of another org, user or a deleted membership is missing. Its scopes bound what any of its
 * tokens may do; `expiresAt` is the grant's (none), each token's own expiry is applied on top.
 */
export async function loadGrant(db: Kysely<IdentityDatabase>, claims: AccessTokenClaims): Promise<Found | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(claims.orgId)) return undefined;
  return db.transaction().execute(async (trx) => {
    await sql`select set_config('app.org_id', ${claims.orgId}, true)`.execute(trx);
    const row = await trx
      .selectFrom('identity.oauth_grants as g')
      .innerJoin('identity.organizations as o', 'o.id', 'g.org_id')
      .innerJoin('identity.users as u', 'u.id', 'g.user_id')
      .select(['g.id', 'g.org_id', 'o.slug', 'g.user_id', 'u.email', 'u.name', 'g.scopes', 'g.tools', 'g.revoked_at'])
      .where('g.grant_id', '=', claims.grantId)
      .where('g.org_id', '=', claims.orgId)
      .executeTakeFirst();
    if (!row || row.user_id !== claims.userId) return undefined;
    return found(row, null);
  });
}

/** The principal of one access token: its grant's, narrowed to the token's scopes and lifetime. */
export function forAccessToken(grant: Principal, claims: AccessTokenClaims): Principal {
  return Object.freeze({
    ...grant,
    expiresAt: claims.expiresAt,
    scopes: Object.freeze(claims.scopes.filter((s) => grant.scopes.includes(s))),
  });
}

/** Who an external issuer's access token names: a user by email, in an org by slug. */
export interface ExternalSubject {
  /** A stable id for the credential (derived from the issuer and subject): the log's token id. */
  credentialId: string;
  email: string;
  orgSlug: string;
}

/**
 * The member an external issuer's token names. Organizations and users carry no tenant; the
 * membership is read in the named org (RLS applies), so a user of another org is missing.
 */
export async function loadMember(db: Kysely<IdentityDatabase>, subject: ExternalSubject): Promise<Found | undefined> {
  const org = await db
    .selectFrom('identity.organizations')
    .select(['id', 'slug'])
    .where('slug', '=', subject.orgSlug)
    .executeTakeFirst();
  if (!org) return undefined;
  return db.transaction().execute(async (trx) => {
    await sql`select set_config('app.org_id', ${org.id}, true)`.execute(trx);
    const row = await trx
      .selectFrom('identity.memberships as m')
      .innerJoin('identity.users as u', 'u.id', 'm.user_id')
      .select(['u.id', 'u.email', 'u.name'])
      .where('m.org_id', '=', org.id)
      .where('u.email', '=', subject.email.toLowerCase())
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      revokedAt: null,
      principal: Object.freeze({
        tokenId: subject.credentialId,
        orgId: org.id,
        orgSlug: org.slug,
        userId: row.id,
        email: row.email,
        name: row.name,
        expiresAt: null,
        scopes: Object.freeze([]),
        tools: null,
      }),
    };
  });
}
