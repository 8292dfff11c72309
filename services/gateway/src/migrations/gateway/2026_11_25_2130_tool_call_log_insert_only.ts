import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// The tool-call log is a record of what was called, like the plan audit log: once written it is
// never changed. Statement-level triggers refuse UPDATE, DELETE and TRUNCATE, even one that
// matches no row, for every role (the app role's table grants come from provisionAppRole and
// are re-applied on every start, so a REVOKE would not last). Only the schema owner, who may
// disable the triggers, could purge it, as a deliberate retention operation.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function gateway.refuse_tool_call_log_change() returns trigger language plpgsql as $$
    begin
      raise exception 'gateway.mcp_tool_call_log is insert-only: % is not allowed', tg_op
        using errcode = 'restrict_violation';
    end
    $$;
    create trigger mcp_tool_call_log_insert_only
      before update or delete on gateway.mcp_tool_call_log
      for each statement execute function gateway.refuse_tool_call_log_change();
    create trigger mcp_tool_call_log_no_truncate
      before truncate on gateway.mcp_tool_call_log
      for each statement execute function gateway.refuse_tool_call_log_change();
  `.execute(db);
}
