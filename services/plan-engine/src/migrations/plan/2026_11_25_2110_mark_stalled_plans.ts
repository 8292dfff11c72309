import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// Stalls are stored, not only derived at read time: a maintenance sweep marks an executing plan
// with a step in progress for longer than the threshold (strictly) as `stalled`, with a
// plan_status_changed audit row (cause stall_detected, the overdue steps), as the core's
// detect_stall does for one plan. The rule is the one of plan.count_stalled_plans and of the
// core (test/stalled-rule.test.ts holds the three together).
//
// The sweep crosses orgs, which the app role never can: it goes through one SECURITY DEFINER
// function that runs as this schema's owner, callable only by members of the nologin role
// quarry_plan_maintenance (grantPlanMaintenance). It finds overdue plans through the owner's
// read-only policies (stall_count_owner_read), then writes each plan under that plan's own
// tenant (app.org_id, put back as the caller had it on the way out), so its writes pass the same
// tenant_isolation policies as any request's. A plan a request holds locked is skipped (SKIP
// LOCKED) and caught by the next sweep, so replicas sweeping at once never block or double-mark.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function plan.mark_stalled_plans(threshold interval, max_plans integer) returns integer
      language plpgsql volatile security definer
      set search_path = pg_catalog, plan
      as $$
      declare
        candidate record;
        overdue jsonb;
        marked integer := 0;
        previous text := current_setting('app.org_id', true);
      begin
        if threshold is null or threshold <= interval '0' then
          raise exception 'mark_stalled_plans: threshold must be a positive interval, got %', coalesce(threshold::text, 'null')
            using errcode = 'invalid_parameter_value';
        end if;
        if max_plans is null or max_plans < 1 then
          raise exception 'mark_stalled_plans: max_plans must be at least 1, got %', coalesce(max_plans::text, 'null')
            using errcode = 'invalid_parameter_value';
        end if;
        for candidate in
          select p.id, p.org_id from plan.research_plans p
          where p.status = 'executing'
            and exists (select 1 from plan.plan_steps s
              where s.plan_id = p.id and s.status = 'in_progress' and s.started_at < now() - threshold)
          order by p.id
          limit max_plans
        loop
          perform set_config('app.org_id', candidate.org_id::text, true);
          -- Under the plan's lock, the rule checked again: a request may have moved it meanwhile.
          perform 1 from plan.research_plans p
            where p.id = candidate.id and p.status = 'executing'
              and exists (select 1 from plan.plan_steps s
                where s.plan_id = p.id and s.status = 'in_progress' and s.started_at < now() - threshold)
            for update skip locked;
          if found then
            select jsonb_agg(s.id order by s.step_order) into overdue from plan.plan_steps s
              where s.plan_id = candidate.id and s.status = 'in_progress' and s.started_at < now() - threshold;
            update plan.research_plans set status = 'stalled', updated_at = now() where id = candidate.id;
            insert into plan.plan_audit_log (org_id, plan_id, event_type, details)
              values (candidate.org_id, candidate.id, 'plan_status_changed', jsonb_build_object(
                'from', 'executing', 'to', 'stalled', 'cause', 'stall_detected', 'stalledStepIds', overdue));
            marked := marked + 1;
          end if;
        end loop;
        perform set_config('app.org_id', coalesce(previous, ''), true);
        return marked;
      end
      $$;
    revoke all on function plan.mark_stalled_plans(interval, integer) from public;

    do $$
    begin
      if not exists (select 1 from pg_roles where rolname = 'quarry_plan_maintenance') then
        create role quarry_plan_maintenance nologin;
      end if;
    exception when duplicate_object or unique_violation then null;
    end
    $$;
    grant usage on schema plan to quarry_plan_maintenance;
    grant execute on function plan.mark_stalled_plans(interval, integer) to quarry_plan_maintenance;
  `.execute(db);
}
