import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// A plan can be cancelled (a terminal status, with when, why and from which status, so a retried
// cancel_plan gets the same answer) and archived (a flag, not a status: an archived plan keeps
// its state and stays readable; the active lists leave it out).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table plan.research_plans drop constraint research_plans_status_check;
    alter table plan.research_plans add constraint research_plans_status_check
      check (status in ('planning', 'executing', 'awaiting_review', 'stalled', 'completed', 'failed', 'cancelled'));
    alter table plan.research_plans
      add column archived_at timestamptz,
      add column cancelled_at timestamptz,
      add column cancelled_from text,
      add column cancellation_reason text,
      add constraint research_plans_cancellation_check check (
        (status = 'cancelled') = (cancelled_at is not null and cancelled_from is not null and cancellation_reason is not null));

    -- list_active_plans: not finished, not archived, most recently updated first.
    create index research_plans_listed_active_idx on plan.research_plans (org_id, updated_at desc, id desc)
      where status not in ('completed', 'failed', 'cancelled') and archived_at is null;
    -- list_plans: every plan of an org, most recently updated first.
    create index research_plans_org_updated_idx on plan.research_plans (org_id, updated_at desc, id desc);
  `.execute(db);
}
