import { createHash, randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { recordAuthEvent } from '../oauth/audit.js';
import { IdentityAdminError } from './admin.js';
import type { IdentityDatabase } from './schema.js';
import { parseScopes } from './scopes.js';
import { inTransaction } from './transaction.js';

/** Every service account's OAuth client id starts with this; the authorization server finds them by it. */
export const SERVICE_ACCOUNT_CLIENT_PREFIX = 'qsa_';
/** Every service-account secret starts with this, so scanners and log scrubbers can find one. */
const SECRET_PREFIX = 'qss_';
const NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/;

export interface ServiceAccountSummary {
  id: string;
  org: string;
  name: string;
  clientId: string;
  /** Enough of the secret to recognise it, far too little to use it. */
  secretHint: string;
  scopes: string[];
  createdAt: Date;
  secretRotatedAt: Date | null;
  revokedAt: Date | null;
}

/** A secret just issued: `clientSecret` is shown this once; only its SHA-256 is stored. */
export interface IssuedServiceAccount extends ServiceAccountSummary {
  clientSecret: string;
}

/**
 * Operator-side service accounts (the `quarry service-account` commands, admin connection):
 * create one in an org with scopes, list them, rotate the secret, revoke. Every change is
 * recorded in identity.auth_events.
 */
export interface ServiceAccountAdmin {
  create(input: { orgSlug: string; name: string; scopes: string }): Promise<IssuedServiceAccount>;
  list(filter?: { orgSlug?: string; includeRevoked?: boolean }): Promise<ServiceAccountSummary[]>;
  /** A new secret; the old one stops working at once (tokens it already got live until they expire). */
  rotateSecret(clientId: string): Promise<IssuedServiceAccount>;
  /** No new token from now on; tokens it already got live until they expire (minutes). */
  revoke(clientId: string): Promise<ServiceAccountSummary>;
}

export function hashServiceAccountSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

function newSecret(): { secret: string; hash: Buffer; hint: string } {
  const secret = SECRET_PREFIX + randomBytes(32).toString('base64url');
  return { secret, hash: hashServiceAccountSecret(secret), hint: `${secret.slice(0, 8)}…${secret.slice(-4)}` };
}

interface Row {
  id: string;
  org: string;
  name: string;
  client_id: string;
  secret_hint: string;
  scopes: string[];
  created_at: Date;
  secret_rotated_at: Date | null;
  revoked_at: Date | null;
}

function summary(row: Row): ServiceAccountSummary {
  return {
    id: row.id,
    org: row.org,
    name: row.name,
    clientId: row.client_id,
    secretHint: row.secret_hint,
    scopes: row.scopes,
    createdAt: row.created_at,
    secretRotatedAt: row.secret_rotated_at,
    revokedAt: row.revoked_at,
  };
}

export function createServiceAccountAdmin(db: Kysely<IdentityDatabase>): ServiceAccountAdmin {
  const columns = [
    'sa.id',
    'o.slug as org',
    'sa.name',
    'sa.client_id',
    'sa.secret_hint',
    'sa.scopes',
    'sa.created_at',
    'sa.secret_rotated_at',
    'sa.revoked_at',
  ] as const;
  const select = (trx: Kysely<IdentityDatabase>) =>
    trx
      .selectFrom('identity.service_accounts as sa')
      .innerJoin('identity.organizations as o', 'o.id', 'sa.org_id')
      .select(columns);

  async function active(trx: Kysely<IdentityDatabase>, clientId: string) {
    const row = await select(trx).where('sa.client_id', '=', clientId).executeTakeFirst();
    if (!row) throw new IdentityAdminError('NOT_FOUND', `No service account with client id ${clientId}.`);
    if (row.revoked_at) throw new IdentityAdminError('INVALID_ARGUMENT', `Service account ${clientId} is revoked.`);
    return row;
  }

  return {
    async create({ orgSlug, name, scopes }) {
      if (!NAME.test(name)) {
        throw new IdentityAdminError(
          'INVALID_ARGUMENT',
          `Service account name "${name}": use 1–63 lowercase letters, digits, dots, dashes or underscores.`,
        );
      }
      let parsed: string[];
      try {
        parsed = parseScopes(scopes);
      } catch (error) {
        throw new IdentityAdminError('INVALID_ARGUMENT', (error as Error).message);
      }
      return inTransaction(db, async (trx) => {
        const org = await trx
          .selectFrom('identity.organizations')
          .select(['id', 'slug'])
          .where('slug', '=', orgSlug)
          .executeTakeFirst();
        if (!org) throw new IdentityAdminError('NOT_FOUND', `No organization "${orgSlug}".`);
        const taken = await trx
          .selectFrom('identity.service_accounts')
          .select('id')
          .where('org_id', '=', org.id)
          .where('name', '=', name)
          .where('revoked_at', 'is', null)
          .executeTakeFirst();
        if (taken)
          throw new IdentityAdminError('ALREADY_EXISTS', `Org ${orgSlug} already has a service account "${name}".`);
        const { secret, hash, hint } = newSecret();
        const clientId = SERVICE_ACCOUNT_CLIENT_PREFIX + randomBytes(12).toString('hex');
        const row = await trx
          .insertInto('identity.service_accounts')
          .values({ org_id: org.id, name, client_id: clientId, secret_hash: hash, secret_hint: hint, scopes: parsed })
          .returning([
            'id',
            'name',
            'client_id',
            'secret_hint',
            'scopes',
            'created_at',
            'secret_rotated_at',
            'revoked_at',
          ])
          .executeTakeFirstOrThrow();
        await recordAuthEvent(trx, {
          event: 'service_account_created',
          orgSlug,
          clientId,
          detail: { name, scopes: parsed },
        });
        return { ...summary({ ...row, org: org.slug }), clientSecret: secret };
      });
    },

    async list(filter = {}) {
      let query = select(db).orderBy('sa.created_at');
      if (filter.orgSlug) query = query.where('o.slug', '=', filter.orgSlug);
      if (!filter.includeRevoked) query = query.where('sa.revoked_at', 'is', null);
      return (await query.execute()).map(summary);
    },

    async rotateSecret(clientId) {
      return inTransaction(db, async (trx) => {
        const row = await active(trx, clientId);
        const { secret, hash, hint } = newSecret();
        const updated = await trx
          .updateTable('identity.service_accounts')
          .set({ secret_hash: hash, secret_hint: hint, secret_rotated_at: sql`now()` })
          .where('client_id', '=', clientId)
          .returning(['secret_hint', 'secret_rotated_at'])
          .executeTakeFirstOrThrow();
        await recordAuthEvent(trx, { event: 'service_account_secret_rotated', orgSlug: row.org, clientId });
        return { ...summary({ ...row, ...updated }), clientSecret: secret };
      });
    },

    async revoke(clientId) {
      return inTransaction(db, async (trx) => {
        const row = await active(trx, clientId);
        const updated = await trx
          .updateTable('identity.service_accounts')
          .set({ revoked_at: sql`now()` })
          .where('client_id', '=', clientId)
          .returning(['revoked_at'])
          .executeTakeFirstOrThrow();
        await recordAuthEvent(trx, { event: 'service_account_revoked', orgSlug: row.org, clientId });
        return summary({ ...row, ...updated });
      });
    },
  };
}
