import { type Kysely, sql } from 'kysely';
import { createOAuthAdmin } from '../oauth/admin.js';
import { IdentityAdminError } from './admin.js';
import { inOrg, type Member } from './member.js';
import type { IdentityDatabase } from './schema.js';

/** An app the person connected with OAuth in this organization (one consented grant). */
export interface ConnectedApp {
  id: string;
  clientId: string;
  clientName: string | null;
  scopes: string[];
  /** The tools its tokens may call; null: every tool. */
  tools: string[] | null;
  connectedAt: Date;
  /** Its latest tool call (the tool-call log names a grant's calls by the grant's id). */
  lastUsedAt: Date | null;
}

/** The person's active grants in the organization, newest first. */
export async function listConnectedApps(db: Kysely<IdentityDatabase>, member: Member): Promise<ConnectedApp[]> {
  return inOrg(db, member, (trx) =>
    trx
      .selectFrom('identity.oauth_grants as g')
      .select([
        'g.id',
        'g.client_id as clientId',
        'g.client_name as clientName',
        'g.scopes',
        'g.tools',
        'g.created_at as connectedAt',
        sql<Date | null>`(select max(l.occurred_at) from gateway.mcp_tool_call_log l where l.token_id = g.id)`.as(
          'lastUsedAt',
        ),
      ])
      .where('g.user_id', '=', member.userId)
      .where('g.revoked_at', 'is', null)
      .orderBy('g.created_at', 'desc')
      .execute(),
  );
}

/** Disconnects one of the person's apps: its tokens are refused from the next request on. */
export async function revokeConnectedApp(db: Kysely<IdentityDatabase>, member: Member, id: string): Promise<void> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) throw new IdentityAdminError('NOT_FOUND', 'No such connected app.');
  await inOrg(db, member, async (trx) => {
    const own = await trx
      .selectFrom('identity.oauth_grants')
      .select('id')
      .where('id', '=', id)
      .where('user_id', '=', member.userId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (!own) throw new IdentityAdminError('NOT_FOUND', 'No such connected app.');
    await createOAuthAdmin(trx).revokeGrant(id);
  });
}
