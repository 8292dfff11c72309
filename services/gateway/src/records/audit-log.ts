import { type Kysely, sql } from 'kysely';
import { inOrg, type Member, requireAdmin } from '../identity/member.js';
import type { IdentityDatabase } from '../identity/schema.js';
import { type LogPage, PAGE_SIZE, pageOf } from './page.js';

export interface AuditLogFilter {
  event?: string;
  email?: string;
  from?: Date;
  to?: Date;
  /** Keyset position: rows older than this id. */
  before?: string;
  limit?: number;
}

export interface AuditLogRow {
  id: string;
  occurredAt: Date;
  event: string;
  email: string | null;
  clientId: string | null;
  ip: string | null;
  detail: Record<string, unknown> | null;
}

/**
 * The organization's audit log of sign-ins, consents, tokens, invitations and membership changes
 * (identity.auth_events naming the org), newest first, filtered and paged by id (admins only).
 * Events that name no organization (a failed sign-in of an unknown email) are the operator's.
 */
export async function queryAuditLog(
  db: Kysely<IdentityDatabase>,
  member: Member,
  filter: AuditLogFilter,
): Promise<LogPage<AuditLogRow>> {
  requireAdmin(member);
  const limit = filter.limit ?? PAGE_SIZE;
  const rows = await inOrg(db, member, (trx) => {
    let query = trx
      .selectFrom('identity.auth_events as e')
      .select([
        sql<string>`e.id::text`.as('id'),
        'e.occurred_at as occurredAt',
        'e.event',
        'e.email',
        'e.client_id as clientId',
        'e.ip',
        'e.detail',
      ])
      .where('e.org_slug', '=', member.orgSlug)
      .orderBy('e.id', 'desc')
      .limit(limit + 1);
    if (filter.event) query = query.where('e.event', '=', filter.event);
    if (filter.email) query = query.where('e.email', '=', filter.email.trim().toLowerCase());
    if (filter.from) query = query.where('e.occurred_at', '>=', filter.from);
    if (filter.to) query = query.where('e.occurred_at', '<', filter.to);
    if (filter.before) query = query.where('e.id', '<', filter.before);
    return query.execute();
  });
  return pageOf(rows, limit);
}
