import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- The tools a credential may call, by name; null means every tool (what every existing
    -- token and grant could do). The names are checked against the tool catalogue when the
    -- credential is created; a tool removed later simply matches nothing.
    alter table identity.personal_access_tokens
      add column tools text[] check (tools is null or cardinality(tools) > 0);
    alter table identity.oauth_grants
      add column tools text[] check (tools is null or cardinality(tools) > 0);
    -- A cached credential must not outlive a change of what it may call.
    create trigger personal_access_tokens_tools_changed
      after update of tools on identity.personal_access_tokens
      for each row execute function identity.notify_token_changed();
    create trigger oauth_grants_tools_changed
      after update of tools on identity.oauth_grants
      for each row execute function identity.notify_token_changed();
  `.execute(db);
}
