import { type Kysely, sql } from 'kysely';
import { inOrg, type Member, requireAdmin } from '../identity/member.js';
import type { IdentityDatabase } from '../identity/schema.js';
import { type LogPage, PAGE_SIZE, pageOf } from './page.js';

export interface ToolCallFilter {
  tool?: string;
  outcome?: string;
  email?: string;
  from?: Date;
  to?: Date;
  before?: string;
  limit?: number;
}

export interface ToolCallRow {
  id: string;
  occurredAt: Date;
  tool: string;
  outcome: string;
  errorCode: string | null;
  durationMs: number;
  email: string | null;
  tokenId: string | null;
  requestId: string;
  inputTokens: number | null;
  outputTokens: number | null;
}

const OUTCOMES = ['ok', 'tool_error', 'protocol_error', 'input_required'];

/** The organization's tool-call log, newest first, filtered and paged by id (admins only). */
export async function queryToolCalls(
  db: Kysely<IdentityDatabase>,
  member: Member,
  filter: ToolCallFilter,
): Promise<LogPage<ToolCallRow>> {
  requireAdmin(member);
  const limit = filter.limit ?? PAGE_SIZE;
  const rows = await inOrg(db, member, (trx) => {
    let query = trx
      .selectFrom('gateway.mcp_tool_call_log as l')
      .leftJoin('identity.users as u', 'u.id', 'l.user_id')
      .select([
        sql<string>`l.id::text`.as('id'),
        'l.occurred_at as occurredAt',
        'l.tool',
        'l.outcome',
        'l.error_code as errorCode',
        'l.duration_ms as durationMs',
        'u.email',
        'l.token_id as tokenId',
        'l.request_id as requestId',
        'l.input_tokens as inputTokens',
        'l.output_tokens as outputTokens',
      ])
      .orderBy('l.id', 'desc')
      .limit(limit + 1);
    if (filter.tool) query = query.where('l.tool', '=', filter.tool);
    if (filter.outcome && OUTCOMES.includes(filter.outcome))
      query = query.where('l.outcome', '=', filter.outcome as 'ok');
    if (filter.email) query = query.where('u.email', '=', filter.email.trim().toLowerCase());
    if (filter.from) query = query.where('l.occurred_at', '>=', filter.from);
    if (filter.to) query = query.where('l.occurred_at', '<', filter.to);
    if (filter.before) query = query.where('l.id', '<', filter.before);
    return query.execute();
  });
  return pageOf(rows, limit);
}
