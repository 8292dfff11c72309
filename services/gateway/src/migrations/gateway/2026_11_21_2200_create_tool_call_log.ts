import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table gateway.mcp_tool_call_log (
      id bigint generated always as identity primary key,
      occurred_at timestamptz not null,
      org_id uuid not null,
      user_id uuid,
      token_id uuid,
      request_id text not null,
      tool text not null,
      duration_ms double precision not null check (duration_ms >= 0),
      outcome text not null check (outcome in ('ok', 'tool_error', 'protocol_error')),
      error_code text,
      argument_bytes integer not null check (argument_bytes >= 0),
      input_tokens integer,
      output_tokens integer
    );
    create index mcp_tool_call_log_org_time_idx on gateway.mcp_tool_call_log (org_id, occurred_at desc);

    alter table gateway.mcp_tool_call_log enable row level security;
    alter table gateway.mcp_tool_call_log force row level security;
    create policy tenant_isolation on gateway.mcp_tool_call_log
      using (org_id = nullif(current_setting('app.org_id', true), '')::uuid)
      with check (org_id = nullif(current_setting('app.org_id', true), '')::uuid);
  `.execute(db);
}
