import { type Kysely, sql } from 'kysely';
import { createOAuthAdmin } from '../oauth/admin.js';
import { IdentityAdminError } from './admin.js';
import { inOrg, type Member, requireAdmin } from './member.js';
import type { IdentityDatabase } from './schema.js';

/** An OAuth client as one organization sees it: the grants its members gave it. */
export interface OrgOAuthClient {
  clientId: string;
  clientName: string | null;
  /** Members with an active grant to it. */
  activeGrants: number;
  firstConnectedAt: Date;
  lastUsedAt: Date | null;
}

/**
 * The OAuth clients the organization's members connected (admins only). Clients are registered
 * with the authorization server for everyone; what an organization controls is its members'
 * grants, so "revoke" here revokes those and leaves other organizations' alone.
 */
export async function listOrgOAuthClients(db: Kysely<IdentityDatabase>, member: Member): Promise<OrgOAuthClient[]> {
  requireAdmin(member);
  return inOrg(db, member, (trx) =>
    trx
      .selectFrom('identity.oauth_grants as g')
      .select([
        'g.client_id as clientId',
        sql<string | null>`max(g.client_name)`.as('clientName'),
        sql<number>`count(*) filter (where g.revoked_at is null)::int`.as('activeGrants'),
        sql<Date>`min(g.created_at)`.as('firstConnectedAt'),
        sql<Date | null>`(select max(l.occurred_at) from gateway.mcp_tool_call_log l
          where l.token_id = any(array_agg(g.id)))`.as('lastUsedAt'),
      ])
      .groupBy('g.client_id')
      .orderBy('firstConnectedAt', 'desc')
      .execute(),
  );
}

/** Revokes every grant the organization's members gave a client; its tokens stop at once. */
export async function revokeOrgOAuthClient(
  db: Kysely<IdentityDatabase>,
  member: Member,
  clientId: string,
): Promise<{ grants: number }> {
  requireAdmin(member);
  return inOrg(db, member, async (trx) => {
    const grants = await trx
      .selectFrom('identity.oauth_grants')
      .select('id')
      .where('client_id', '=', clientId)
      .where('revoked_at', 'is', null)
      .execute();
    if (grants.length === 0) throw new IdentityAdminError('NOT_FOUND', 'No such client in this organization.');
    const oauth = createOAuthAdmin(trx);
    for (const grant of grants) await oauth.revokeGrant(grant.id);
    return { grants: grants.length };
  });
}
