import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// MCP tasks (the io.modelcontextprotocol/tasks extension): a long tool call a client runs in the
// background. The row is the task's state, readable by every gateway replica; the replica that
// accepted the call runs it and writes the outcome. A task belongs to the org (RLS) and to the
// token that created it (token_id, checked by every lookup). `run_deadline` is when a task still
// 'working' must have been given up by a replica that stopped; `expires_at` is when it is
// forgotten. The app role's grants (select, insert, update, delete) come from provisionAppRole.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table gateway.mcp_tasks (
      id uuid primary key,
      org_id uuid not null,
      token_id uuid not null,
      user_id uuid not null,
      tool text not null,
      status text not null check (status in ('working', 'completed', 'failed', 'cancelled')),
      status_message text,
      result jsonb,
      error jsonb,
      cancel_requested boolean not null default false,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      run_deadline timestamptz not null,
      expires_at timestamptz not null,
      check ((status = 'completed') = (result is not null)),
      check ((status = 'failed') = (error is not null))
    );
    create index mcp_tasks_org_expiry_idx on gateway.mcp_tasks (org_id, expires_at);

    alter table gateway.mcp_tasks enable row level security;
    alter table gateway.mcp_tasks force row level security;
    create policy tenant_isolation on gateway.mcp_tasks
      using (org_id = nullif(current_setting('app.org_id', true), '')::uuid)
      with check (org_id = nullif(current_setting('app.org_id', true), '')::uuid);
  `.execute(db);
}
