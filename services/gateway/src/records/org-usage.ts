import { type Kysely, sql } from 'kysely';
import { inOrg, type Member, requireAdmin } from '../identity/member.js';
import type { IdentityDatabase } from '../identity/schema.js';

export interface ToolUsage {
  tool: string;
  calls: number;
  errors: number;
  p95Ms: number;
  inputTokens: number;
  outputTokens: number;
}

export interface OrgUsage {
  since: Date;
  members: number;
  activeTokens: number;
  connectedApps: number;
  serviceAccounts: number;
  byTool: ToolUsage[];
}

/** What the organization used in the last `days` days, per tool, and what it holds (admins only). */
export async function orgUsage(db: Kysely<IdentityDatabase>, member: Member, days = 30): Promise<OrgUsage> {
  requireAdmin(member);
  const since = new Date(Date.now() - days * 86_400_000);
  return inOrg(db, member, async (trx) => {
    const count = (table: string, where = 'true') =>
      sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)} where ${sql.raw(where)}`
        .execute(trx)
        .then((r) => r.rows[0]!.n);
    const [members, activeTokens, connectedApps, serviceAccounts, byTool] = await Promise.all([
      count('identity.memberships'),
      count('identity.personal_access_tokens', 'revoked_at is null and (expires_at is null or expires_at > now())'),
      count('identity.oauth_grants', 'revoked_at is null'),
      count('identity.service_accounts', 'revoked_at is null'),
      trx
        .selectFrom('gateway.mcp_tool_call_log')
        .select([
          'tool',
          sql<number>`count(*)::int`.as('calls'),
          sql<number>`count(*) filter (where outcome in ('tool_error', 'protocol_error'))::int`.as('errors'),
          sql<number>`coalesce(percentile_cont(0.95) within group (order by duration_ms), 0)::float8`.as('p95Ms'),
          sql<number>`coalesce(sum(input_tokens), 0)::int`.as('inputTokens'),
          sql<number>`coalesce(sum(output_tokens), 0)::int`.as('outputTokens'),
        ])
        .where('occurred_at', '>=', since)
        .groupBy('tool')
        .orderBy('calls', 'desc')
        .execute(),
    ]);
    return { since, members, activeTokens, connectedApps, serviceAccounts, byTool };
  });
}
