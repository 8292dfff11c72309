import { type Kysely, sql } from 'kysely';
import { IdentityAdminError } from '../identity/admin.js';
import type { IdentityDatabase } from '../identity/schema.js';
import { parseToolNames } from '../identity/tool-allowlist.js';
import { inTransaction } from '../identity/transaction.js';
import { recordAuthEvent } from './audit.js';
import { hashPassword, MIN_PASSWORD_LENGTH } from './passwords.js';
import { rotateSigningKey } from './signing-keys.js';

export interface GrantSummary {
  id: string;
  org: string;
  user: string;
  client: string;
  clientName: string | null;
  scopes: string[];
  /** The tools its access tokens may call; null: every tool. */
  tools: string[] | null;
  createdAt: Date;
  revokedAt: Date | null;
}

export interface ClientSummary {
  clientId: string;
  name: string | null;
  redirectUris: string[];
  grants: number;
}

/**
 * Operator-side OAuth management (the `quarry` CLI, admin connection): sign-in passwords,
 * the grants users consented to, registered clients and the signing key.
 */
export interface OAuthAdmin {
  setPassword(email: string, password: string): Promise<void>;
  listGrants(filter?: { orgSlug?: string }): Promise<GrantSummary[]>;
  /** Refuses the grant's access tokens from the next request on and deletes its refresh tokens. */
  revokeGrant(id: string): Promise<{ id: string; revokedAt: Date }>;
  /**
   * Limits a grant's access tokens to these tools (names from the catalogue), or lifts the limit
   * (null); cached grants are evicted on every gateway, so it applies from the next request on.
   */
  setGrantTools(id: string, tools: readonly string[] | null): Promise<{ id: string; tools: string[] | null }>;
  listClients(): Promise<ClientSummary[]>;
  /** Deletes a registered client and revokes every grant it holds. */
  revokeClient(clientId: string): Promise<{ clientId: string; grants: number }>;
  /** A new signing key; the old ones still verify the tokens they signed. */
  rotateSigningKey(): Promise<string>;
}

const UUID = /^[0-9a-f-]{36}$/i;

export function createOAuthAdmin(db: Kysely<IdentityDatabase>): OAuthAdmin {
  /** Revokes grants and deletes the authorization server's records under them (refresh tokens…). */
  async function revokeGrants(trx: Kysely<IdentityDatabase>, where: { id?: string; clientId?: string }) {
    let query = trx
      .updateTable('identity.oauth_grants')
      .set({ revoked_at: sql`coalesce(revoked_at, now())` })
      .returning(['id', 'grant_id', 'revoked_at', 'client_id', 'user_id']);
    if (where.id) query = query.where('id', '=', where.id);
    if (where.clientId) query = query.where('client_id', '=', where.clientId);
    const rows = await query.execute();
    const grantIds = rows.map((r) => r.grant_id);
    if (grantIds.length > 0) {
      await trx
        .deleteFrom('identity.oauth_provider_state')
        .where((eb) =>
          eb.or([eb('grant_id', 'in', grantIds), eb.and([eb('model', '=', 'Grant'), eb('id', 'in', grantIds)])]),
        )
        .execute();
    }
    for (const row of rows)
      await recordAuthEvent(trx, { event: 'grant_revoked', userId: row.user_id, clientId: row.client_id });
    return rows;
  }

  return {
    async setPassword(email, password) {
      if (password.length < MIN_PASSWORD_LENGTH)
        throw new IdentityAdminError(
          'INVALID_ARGUMENT',
          `The password must have at least ${MIN_PASSWORD_LENGTH} characters.`,
        );
      const user = await db
        .selectFrom('identity.users')
        .select('id')
        .where('email', '=', email.trim().toLowerCase())
        .executeTakeFirst();
      if (!user) throw new IdentityAdminError('NOT_FOUND', `No user with email ${email}.`);
      const password_hash = await hashPassword(password);
      await db
        .insertInto('identity.user_passwords')
        .values({ user_id: user.id, password_hash })
        .onConflict((oc) => oc.column('user_id').doUpdateSet({ password_hash, updated_at: sql`now()` }))
        .execute();
    },

    async listGrants(filter = {}) {
      let query = db
        .selectFrom('identity.oauth_grants as g')
        .innerJoin('identity.organizations as o', 'o.id', 'g.org_id')
        .innerJoin('identity.users as u', 'u.id', 'g.user_id')
        .select([
          'g.id',
          'o.slug as org',
          'u.email as user',
          'g.client_id as client',
          'g.client_name as clientName',
          'g.scopes',
          'g.tools',
          'g.created_at as createdAt',
          'g.revoked_at as revokedAt',
        ])
        .orderBy('g.created_at', 'desc');
      if (filter.orgSlug) query = query.where('o.slug', '=', filter.orgSlug);
      return query.execute();
    },

    async revokeGrant(id) {
      if (!UUID.test(id))
        throw new IdentityAdminError(
          'INVALID_ARGUMENT',
          `"${id}" is not a grant id (a UUID from \`quarry grants list\`).`,
        );
      const [row] = await inTransaction(db, (trx) => revokeGrants(trx, { id }));
      if (!row) throw new IdentityAdminError('NOT_FOUND', `No grant with id ${id}.`);
      return { id: row.id, revokedAt: row.revoked_at! };
    },

    async setGrantTools(id, tools) {
      if (!UUID.test(id))
        throw new IdentityAdminError(
          'INVALID_ARGUMENT',
          `"${id}" is not a grant id (a UUID from \`quarry grants list\`).`,
        );
      let names: string[] | null = null;
      try {
        names = tools === null ? null : parseToolNames(tools);
      } catch (error) {
        throw new IdentityAdminError('INVALID_ARGUMENT', (error as Error).message);
      }
      const row = await db
        .updateTable('identity.oauth_grants')
        .set({ tools: names })
        .where('id', '=', id)
        .returning(['id', 'tools'])
        .executeTakeFirst();
      if (!row) throw new IdentityAdminError('NOT_FOUND', `No grant with id ${id}.`);
      return row;
    },

    async listClients() {
      const rows = await db
        .selectFrom('identity.oauth_provider_state as s')
        .select([
          's.id as clientId',
          sql<string | null>`s.payload->>'client_name'`.as('name'),
          sql<string[]>`coalesce(array(select jsonb_array_elements_text(s.payload->'redirect_uris')), '{}')`.as(
            'redirectUris',
          ),
          sql<number>`(select count(*)::int from identity.oauth_grants g where g.client_id = s.id and g.revoked_at is null)`.as(
            'grants',
          ),
        ])
        .where('s.model', '=', 'Client')
        .orderBy('s.id')
        .execute();
      return rows;
    },

    async revokeClient(clientId) {
      return inTransaction(db, async (trx) => {
        const deleted = await trx
          .deleteFrom('identity.oauth_provider_state')
          .where('model', '=', 'Client')
          .where('id', '=', clientId)
          .executeTakeFirst();
        const grants = await revokeGrants(trx, { clientId });
        if (Number(deleted.numDeletedRows) === 0 && grants.length === 0)
          throw new IdentityAdminError('NOT_FOUND', `No client with id ${clientId}.`);
        return { clientId, grants: grants.length };
      });
    },

    rotateSigningKey: () => rotateSigningKey(db),
  };
}
