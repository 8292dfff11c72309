import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// Every table is org-scoped: rows of one org reference rows of the same org only, because the
// foreign keys include org_id (a step cannot point at another org's plan even through a bug).
// Statuses and types are text with CHECK constraints, spelled as the tools spell them.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table plan.research_plans (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null,
      name text not null check (length(name) between 1 and 200),
      research_question text not null check (length(research_question) between 1 and 4000),
      status text not null default 'planning'
        check (status in ('planning', 'executing', 'awaiting_review', 'stalled', 'completed', 'failed')),
      plan_design_rationale text,
      plan_formatting_notes text,
      session_id text,
      skill_execution_id uuid,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (org_id, id)
    );
    -- list_active_plans: an org's non-terminal plans, most recently updated first (keyset on
    -- updated_at, id). Queries must say "status not in ('completed', 'failed')" to use it.
    create index research_plans_active_idx on plan.research_plans (org_id, updated_at desc, id desc)
      where status not in ('completed', 'failed');

    create table plan.plan_steps (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null,
      plan_id uuid not null,
      step_order integer not null check (step_order >= 1),
      step_type text not null
        check (step_type in ('search', 'extract', 'analyze', 'critique', 'synthesize', 'checkpoint', 'custom')),
      instructions text not null check (length(instructions) >= 1),
      status text not null default 'pending'
        check (status in ('pending', 'in_progress', 'awaiting_input', 'completed', 'skipped', 'failed')),
      result jsonb check (jsonb_typeof(result) = 'object'),
      confidence double precision check (confidence >= 0 and confidence <= 1),
      step_execution_report text,
      formatting_notes text,
      started_at timestamptz,
      completed_at timestamptz,
      failure_reason text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (org_id, id),
      unique (org_id, plan_id, id),
      foreign key (org_id, plan_id) references plan.research_plans (org_id, id) on delete cascade,
      -- Checked at the end of each statement (one UPDATE may permute orders), or at commit after
      -- SET CONSTRAINTS plan.plan_steps_plan_order_key DEFERRED (several UPDATEs may swap them).
      constraint plan_steps_plan_order_key unique (plan_id, step_order) deferrable initially immediate
    );
    -- get_next_step: the first pending step of a plan (… order by step_order for update skip locked).
    create index plan_steps_pending_idx on plan.plan_steps (plan_id, step_order) where status = 'pending';
    -- Stall detection: steps in progress and since when.
    create index plan_steps_in_progress_idx on plan.plan_steps (plan_id, started_at) where status = 'in_progress';

    -- Conditions point at steps by ID, so they follow their steps through reorders. Both steps
    -- belong to the condition's plan (the foreign keys include plan_id). Removing a step that a
    -- condition targets is refused by the database: the service decides what that means first.
    create table plan.branching_conditions (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null,
      plan_id uuid not null,
      step_id uuid not null,
      evaluation_order integer not null check (evaluation_order >= 0),
      condition_expression text not null check (length(condition_expression) between 1 and 1000),
      if_true_action text not null check (if_true_action in ('skip_to', 'fail', 'continue')),
      target_step_id uuid,
      created_at timestamptz not null default now(),
      check ((if_true_action = 'skip_to') = (target_step_id is not null)),
      foreign key (org_id, plan_id) references plan.research_plans (org_id, id) on delete cascade,
      foreign key (org_id, plan_id, step_id) references plan.plan_steps (org_id, plan_id, id) on delete cascade,
      foreign key (org_id, plan_id, target_step_id) references plan.plan_steps (org_id, plan_id, id)
    );
    -- Evaluation after a step completes, in the order the conditions were given.
    create index branching_conditions_step_idx on plan.branching_conditions (step_id, evaluation_order);
    create index branching_conditions_target_idx on plan.branching_conditions (target_step_id) where target_step_id is not null;

    create table plan.user_reviews (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null,
      plan_id uuid not null,
      step_id uuid not null,
      summary text not null check (length(summary) >= 1),
      questions text[] not null default '{}',
      requested_session_id text,
      requested_at timestamptz not null default now(),
      decision text check (decision in ('approve', 'reject', 'modify', 'skip')),
      feedback text,
      decided_session_id text,
      decided_at timestamptz,
      check ((decision is null) = (decided_at is null)),
      foreign key (org_id, plan_id, step_id) references plan.plan_steps (org_id, plan_id, id) on delete cascade
    );
    create index user_reviews_plan_idx on plan.user_reviews (plan_id, requested_at);
    -- At most one open review per step.
    create unique index user_reviews_open_idx on plan.user_reviews (step_id) where decision is null;

    create table plan.skill_executions (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null,
      skill_name text not null check (skill_name in ('research', 'research-scan', 'research-deep')),
      status text not null check (status in ('started', 'executing', 'completed', 'failed')),
      plan_id uuid,
      session_id text,
      metadata jsonb not null default '{}' check (jsonb_typeof(metadata) = 'object'),
      error_message text,
      started_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      completed_at timestamptz,
      duration_ms bigint generated always as ((extract(epoch from (completed_at - started_at)) * 1000)::bigint) stored,
      unique (org_id, id),
      foreign key (org_id, plan_id) references plan.research_plans (org_id, id) on delete set null (plan_id)
    );
    -- create_research_plan links the active execution of the same session.
    create index skill_executions_active_session_idx on plan.skill_executions (org_id, session_id, started_at desc)
      where status in ('started', 'executing');
    create index skill_executions_plan_idx on plan.skill_executions (plan_id) where plan_id is not null;

    alter table plan.research_plans add foreign key (org_id, skill_execution_id)
      references plan.skill_executions (org_id, id) on delete set null (skill_execution_id);

    create table plan.research_feedback (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null,
      plan_id uuid not null,
      feedback_type text not null check (feedback_type in ('initial', 'closing')),
      user_satisfaction smallint check (user_satisfaction between 1 and 5),
      user_feedback_summary text,
      improvement_suggestions text,
      follow_up_requested boolean,
      follow_up_details text,
      session_id text,
      created_at timestamptz not null default now(),
      foreign key (org_id, plan_id) references plan.research_plans (org_id, id) on delete cascade
    );
    create index research_feedback_plan_idx on plan.research_feedback (plan_id, created_at);

    -- One row per org; without a row the defaults apply (conversation, no instructions).
    create table plan.output_preferences (
      org_id uuid primary key,
      output_media_type text not null default 'conversation'
        check (output_media_type in ('conversation', 'markdown', 'html', 'word', 'excel', 'powerpoint')),
      output_formatting_instructions text,
      updated_at timestamptz not null default now()
    );

    -- submit_step_result with an idempotencyKey: the first answer, replayed to retries.
    create table plan.step_result_submissions (
      org_id uuid not null,
      plan_id uuid not null,
      idempotency_key text not null check (length(idempotency_key) between 1 and 200),
      step_id uuid not null,
      response jsonb not null,
      created_at timestamptz not null default now(),
      primary key (org_id, plan_id, idempotency_key),
      foreign key (org_id, plan_id, step_id) references plan.plan_steps (org_id, plan_id, id) on delete cascade
    );

    -- Business events, append-only: written in the same transaction as the change they record,
    -- never changed afterwards (see the triggers below). No foreign key on step_id: removed
    -- steps keep their history. The plan key has no cascade, so a plan with history cannot be
    -- deleted.
    create table plan.plan_audit_log (
      id bigint generated always as identity primary key,
      org_id uuid not null,
      plan_id uuid not null,
      step_id uuid,
      session_id text,
      event_type text not null check (event_type in (
        'plan_modified', 'step_started', 'step_completed', 'step_failed',
        'plan_status_changed', 'user_reviewed', 'session_resumed', 'feedback_recorded')),
      details jsonb not null default '{}' check (jsonb_typeof(details) = 'object'),
      occurred_at timestamptz not null default now(),
      foreign key (org_id, plan_id) references plan.research_plans (org_id, id)
    );
    create index plan_audit_log_plan_time_idx on plan.plan_audit_log (plan_id, occurred_at desc, id desc);

    -- Statement-level, so even an UPDATE or DELETE that matches no row is refused, and it binds
    -- every role including the owner. (A superuser can still disable triggers; that is outside
    -- what a schema can prevent.)
    create function plan.refuse_audit_log_change() returns trigger language plpgsql as $$
    begin
      raise exception 'plan.plan_audit_log is append-only: % is not allowed', tg_op
        using errcode = 'restrict_violation';
    end
    $$;
    create trigger plan_audit_log_append_only
      before update or delete on plan.plan_audit_log
      for each statement execute function plan.refuse_audit_log_change();
    create trigger plan_audit_log_no_truncate
      before truncate on plan.plan_audit_log
      for each statement execute function plan.refuse_audit_log_change();

    -- Long-polls (get_plan_status with waitSeconds) LISTEN on quarry_plan_changed and wake when
    -- their plan changes, on any replica. Payload: "<org_id>:<plan_id>". PostgreSQL folds
    -- identical notifications of one transaction into one; updates that change nothing do not
    -- notify.
    create function plan.notify_plan_changed() returns trigger language plpgsql as $$
    declare
      changed record;
    begin
      if tg_op = 'DELETE' then changed := old; else changed := new; end if;
      if tg_table_name = 'research_plans' then
        perform pg_notify('quarry_plan_changed', changed.org_id::text || ':' || changed.id::text);
      else
        perform pg_notify('quarry_plan_changed', changed.org_id::text || ':' || changed.plan_id::text);
      end if;
      return null;
    end
    $$;
    create trigger research_plans_changed after insert or delete on plan.research_plans
      for each row execute function plan.notify_plan_changed();
    create trigger research_plans_updated after update on plan.research_plans
      for each row when (old.* is distinct from new.*) execute function plan.notify_plan_changed();
    create trigger plan_steps_changed after insert or delete on plan.plan_steps
      for each row execute function plan.notify_plan_changed();
    create trigger plan_steps_updated after update on plan.plan_steps
      for each row when (old.* is distinct from new.*) execute function plan.notify_plan_changed();
  `.execute(db);

  for (const table of TENANT_TABLES) {
    await sql`
      alter table ${sql.raw(table)} enable row level security;
      alter table ${sql.raw(table)} force row level security;
      create policy tenant_isolation on ${sql.raw(table)}
        using (org_id = nullif(current_setting('app.org_id', true), '')::uuid)
        with check (org_id = nullif(current_setting('app.org_id', true), '')::uuid);
    `.execute(db);
  }
}

const TENANT_TABLES = [
  'plan.research_plans',
  'plan.plan_steps',
  'plan.branching_conditions',
  'plan.user_reviews',
  'plan.skill_executions',
  'plan.research_feedback',
  'plan.output_preferences',
  'plan.step_result_submissions',
  'plan.plan_audit_log',
] as const;
