import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// The stalled-plans gauge (quarry_plan_stalled_plans) counts plans of every org, but the plan
// engine connects as the app role, which row-level security confines to one org. The count
// therefore goes through one explicit, narrow path: a SECURITY DEFINER function that runs as
// this schema's owner and returns a single number, never a row. Only members of the nologin
// role quarry_plan_metrics may call it (grantPlanMetrics makes the app role one).
//
// "Stalled" is what get_plan_status and list_active_plans report as the plan's status: stored
// `stalled`, or stored `executing` with a step in_progress since longer than the threshold
// (strictly), the threshold being the service's QUARRY_STALL_THRESHOLD.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- FORCE row level security binds the owner too, unless it is a superuser. The owner (never
    -- the app role: assertTenantSafety keeps it out of owner roles) may read every row, which
    -- only the function below does.
    create policy stall_count_owner_read on plan.research_plans for select to current_user using (true);
    comment on policy stall_count_owner_read on plan.research_plans is
      'quarry:tenant-exempt: the metrics gauge counts stalled plans of all orgs only through the security definer function plan.count_stalled_plans, which runs as this owner and returns a number, never rows';
    create policy stall_count_owner_read on plan.plan_steps for select to current_user using (true);
    comment on policy stall_count_owner_read on plan.plan_steps is
      'quarry:tenant-exempt: the metrics gauge counts stalled plans of all orgs only through the security definer function plan.count_stalled_plans, which runs as this owner and returns a number, never rows';

    -- Plans stored as stalled (the core's detect_stall); empty while the shell derives the
    -- status at read time, so it costs nothing. The other half of the count starts from
    -- plan_steps_in_progress_idx (steps in progress only).
    create index research_plans_stalled_idx on plan.research_plans (id) where status = 'stalled';

    create function plan.count_stalled_plans(threshold interval) returns bigint
      language plpgsql stable security definer
      set search_path = pg_catalog, plan
      as $$
      begin
        if threshold is null or threshold <= interval '0' then
          raise exception 'count_stalled_plans: threshold must be a positive interval, got %', coalesce(threshold::text, 'null')
            using errcode = 'invalid_parameter_value';
        end if;
        return (
          select count(*) from (
            select p.id from plan.research_plans p where p.status = 'stalled'
            union
            select s.plan_id from plan.plan_steps s
            join plan.research_plans p on p.id = s.plan_id and p.status = 'executing'
            where s.status = 'in_progress' and s.started_at < now() - threshold
          ) stalled
        );
      end
      $$;
    revoke all on function plan.count_stalled_plans(interval) from public;

    do $$
    begin
      if not exists (select 1 from pg_roles where rolname = 'quarry_plan_metrics') then
        create role quarry_plan_metrics nologin;
      end if;
    exception when duplicate_object or unique_violation then null;
    end
    $$;
    grant usage on schema plan to quarry_plan_metrics;
    grant execute on function plan.count_stalled_plans(interval) to quarry_plan_metrics;
  `.execute(db);
}
