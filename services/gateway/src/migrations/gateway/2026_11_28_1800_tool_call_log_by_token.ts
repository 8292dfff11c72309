import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// When a token or a connected app was last used is its latest tool call: read per credential.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index mcp_tool_call_log_token_time_idx on gateway.mcp_tool_call_log (token_id, occurred_at desc)
      where token_id is not null;
  `.execute(db);
}
