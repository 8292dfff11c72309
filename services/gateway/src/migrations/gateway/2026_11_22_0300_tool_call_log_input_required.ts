import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// A tool call answered with an MCP input-required result (the client's model is asked through MCP sampling)
// is its own outcome: neither a success nor an error, and its retry is logged as another call.
// Token counts of model-running tools are recorded, so they are never negative.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table gateway.mcp_tool_call_log drop constraint mcp_tool_call_log_outcome_check;
    alter table gateway.mcp_tool_call_log add constraint mcp_tool_call_log_outcome_check
      check (outcome in ('ok', 'tool_error', 'protocol_error', 'input_required'));
    alter table gateway.mcp_tool_call_log add constraint mcp_tool_call_log_tokens_check
      check ((input_tokens is null or input_tokens >= 0) and (output_tokens is null or output_tokens >= 0));
  `.execute(db);
}
