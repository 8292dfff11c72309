import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// A plan's deliverables are part of what its readers see (the plan's report resource), but they
// are stored here, not in the plan engine's tables, whose triggers announce plan changes. So a
// deliverable stored or deleted is announced at commit on a channel of its own,
// quarry_plan_content_changed, with the same payload "<org_id>:<plan_id>": the gateway tells the
// plan's subscribers. PostgreSQL folds identical notifications of one transaction into one
// (a plan's purge deletes many rows, and says so once). NOTIFY needs no grant; nothing is readable
// through it that the payload does not say.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function artifact.notify_plan_content_changed() returns trigger language plpgsql as $$
    declare
      changed record;
    begin
      if tg_op = 'DELETE' then changed := old; else changed := new; end if;
      perform pg_notify('quarry_plan_content_changed', changed.org_id::text || ':' || changed.plan_id::text);
      return null;
    end
    $$;
    create trigger research_outputs_changed after insert or delete on artifact.research_outputs
      for each row execute function artifact.notify_plan_content_changed();
  `.execute(db);
}
