import { enableTenantRls } from '@quarry/db';
import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// delete_plan (docs/adr/0025-deletion-and-the-audit-log.md). The audit log stays append-only
// for the app role, but its rows carry user content (rationales, instructions, review
// summaries, questions and feedback), so a deleted plan's rows cannot outlive it:
//
// - plan.purge_plan_audit(plan) is the ONLY path that may delete audit rows: a SECURITY DEFINER
//   function running as this schema's owner, for one plan of the caller's tenant (app.org_id),
//   returning how many rows it removed and the SHA-256 of their canonical JSON (never the rows).
//   The append-only trigger now lets a DELETE through only when it runs as the owner inside that
//   function (the app role is never the owner: assertTenantSafety); UPDATE and TRUNCATE stay
//   refused for everyone.
// - plan.deleted_plans keeps the content-free tombstone: ids, counts, that hash, who and when.
//   It is append-only too, and has no foreign key: it outlives the plan.
// - The audit log keeps its foreign key to research_plans: a plan with history still cannot be
//   deleted, except by delete_plan, which purges the history first in the same transaction.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace function plan.refuse_audit_log_change() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' and current_setting('quarry.audit_purge', true) = 'on'
         and current_user = (select tableowner from pg_tables where schemaname = 'plan' and tablename = 'plan_audit_log') then
        return null;
      end if;
      raise exception 'plan.plan_audit_log is append-only: % is not allowed', tg_op
        using errcode = 'restrict_violation';
    end
    $$;

    create function plan.purge_plan_audit(target_plan uuid)
      returns table (rows_purged bigint, rows_sha256 text)
      language plpgsql security definer
      set search_path = pg_catalog, plan
      as $$
      declare
        tenant uuid := nullif(current_setting('app.org_id', true), '')::uuid;
        purged bigint;
        digest text;
      begin
        if tenant is null then
          raise exception 'purge_plan_audit needs a tenant (app.org_id)' using errcode = 'insufficient_privilege';
        end if;
        select count(*), encode(sha256(convert_to(coalesce(string_agg(to_jsonb(a)::text, E'\\n' order by a.id), ''), 'UTF8')), 'hex')
          into purged, digest
          from plan.plan_audit_log a where a.org_id = tenant and a.plan_id = target_plan;
        perform set_config('quarry.audit_purge', 'on', true);
        delete from plan.plan_audit_log where org_id = tenant and plan_id = target_plan;
        perform set_config('quarry.audit_purge', 'off', true);
        return query select purged, digest;
      end
      $$;

    create table plan.deleted_plans (
      id bigint generated always as identity primary key,
      org_id uuid not null,
      plan_id uuid not null,
      deleted_by text not null check (length(deleted_by) between 1 and 200),
      request_id text,
      steps_deleted integer not null check (steps_deleted >= 0),
      artifacts_deleted integer not null check (artifacts_deleted >= 0),
      outputs_deleted integer not null check (outputs_deleted >= 0),
      extraction_results_deleted integer not null check (extraction_results_deleted >= 0),
      audit_rows_purged integer not null check (audit_rows_purged >= 0),
      audit_rows_sha256 text not null check (audit_rows_sha256 ~ '^[0-9a-f]{64}$'),
      deleted_at timestamptz not null default now()
    );
    create index deleted_plans_plan_idx on plan.deleted_plans (org_id, plan_id);

    create function plan.refuse_deleted_plans_change() returns trigger language plpgsql as $$
    begin
      raise exception 'plan.deleted_plans is append-only: % is not allowed', tg_op using errcode = 'restrict_violation';
    end
    $$;
    create trigger deleted_plans_append_only before update or delete on plan.deleted_plans
      for each statement execute function plan.refuse_deleted_plans_change();
    create trigger deleted_plans_no_truncate before truncate on plan.deleted_plans
      for each statement execute function plan.refuse_deleted_plans_change();
  `.execute(db);
  await enableTenantRls(db, 'plan.deleted_plans');
}
