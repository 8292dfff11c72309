import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// The tamper-evident audit log (docs/adr/0052-tamper-evident-audit-log.md). Each org's audit
// entries form one hash chain: every plan.plan_audit_log row and every plan.deleted_plans
// tombstone gets the next number of its org (chain_seq, from 1), the previous entry's hash
// (prev_hash, 64 zeros for the first) and its own
//   row_hash = hex(sha256(prev_hash || hex(sha256(canonical content))))
// where the canonical content is the jsonb_build_array(...)::text of the functions below. The
// verifier (the plan engine's core, `quarry audit verify`) recomputes them from the columns,
// never through these functions, which a database owner could replace.
//
// - A BEFORE INSERT trigger fills the three columns in the inserting transaction, whoever
//   inserts (a request, the stall sweep's SQL, a superuser): it locks the org's head row in
//   plan_ledger.chain_heads, so concurrent writers of one org are serialised until commit and the
//   chain order is the commit order; writers of other orgs do not wait.
// - Deleting a plan purges its audit rows (plan.purge_plan_audit): the purge now also returns
//   each purged row's [chain_seq, content hash], which the tombstone stores in purged_links, so
//   the chain can still be recomputed across the gap (and the tombstone is itself an entry).
// - Existing entries are chained here, per org, in time order (rows by occurred_at, tombstones
//   by deleted_at; ties by id, rows first).
// - plan_ledger is a schema of its own that the app role is never granted: the heads and the
//   signed checkpoints are reached only through the trigger and two SECURITY DEFINER functions,
//   callable by members of quarry_plan_maintenance (the plan engine's checkpointer).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create schema plan_ledger;
    revoke all on schema plan_ledger from public;

    create table plan_ledger.chain_heads (
      org_id uuid primary key,
      last_seq bigint not null check (last_seq >= 0),
      head_hash text not null check (head_hash ~ '^[0-9a-f]{64}$'),
      updated_at timestamptz not null default now()
    );

    -- A checkpoint: the plan engine's Ed25519 signature over (org, entries, head_hash, signed_at),
    -- made with a key the database never holds. entries is the number of chain entries it covers
    -- (the seq of the head), purged ones included.
    create table plan_ledger.checkpoints (
      id bigint generated always as identity primary key,
      org_id uuid not null,
      entries bigint not null check (entries >= 1),
      head_hash text not null check (head_hash ~ '^[0-9a-f]{64}$'),
      key_id text not null check (key_id ~ '^[0-9a-f]{64}$'),
      signature text not null check (length(signature) between 1 and 200),
      signed_at timestamptz not null,
      recorded_at timestamptz not null default now(),
      unique (org_id, entries)
    );
    create function plan_ledger.refuse_checkpoint_change() returns trigger language plpgsql as $$
    begin
      raise exception 'plan_ledger.checkpoints is append-only: % is not allowed', tg_op using errcode = 'restrict_violation';
    end
    $$;
    create trigger checkpoints_append_only before update or delete on plan_ledger.checkpoints
      for each statement execute function plan_ledger.refuse_checkpoint_change();
    create trigger checkpoints_no_truncate before truncate on plan_ledger.checkpoints
      for each statement execute function plan_ledger.refuse_checkpoint_change();

    alter table plan.plan_audit_log
      add column chain_seq bigint, add column prev_hash text, add column row_hash text;
    alter table plan.deleted_plans
      add column chain_seq bigint, add column prev_hash text, add column row_hash text,
      add column purged_links jsonb not null default '[]' check (jsonb_typeof(purged_links) = 'array');

    create function plan.audit_row_content(r plan.plan_audit_log) returns text
      language sql stable set search_path = pg_catalog
      as $$
        select jsonb_build_array('quarry.audit.row.v1', r.org_id, r.chain_seq, r.plan_id, r.step_id, r.session_id,
          r.event_type, r.details, to_char(r.occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'))::text
      $$;
    create function plan.audit_tombstone_content(t plan.deleted_plans) returns text
      language sql stable set search_path = pg_catalog
      as $$
        select jsonb_build_array('quarry.audit.tombstone.v1', t.org_id, t.chain_seq, t.plan_id, t.deleted_by, t.request_id,
          t.steps_deleted, t.artifacts_deleted, t.outputs_deleted, t.extraction_results_deleted, t.audit_rows_purged,
          t.audit_rows_sha256, t.purged_links, to_char(t.deleted_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'))::text
      $$;
    create function plan.audit_sha256(content text) returns text
      language sql immutable set search_path = pg_catalog
      as $$ select encode(sha256(convert_to(content, 'UTF8')), 'hex') $$;

    -- The org's head, locked until the transaction ends (created at seq 0 on first use).
    create function plan_ledger.lock_head(org uuid, out last_seq bigint, out head_hash text)
      language plpgsql security definer set search_path = pg_catalog, plan_ledger
      as $$
      begin
        insert into plan_ledger.chain_heads (org_id, last_seq, head_hash) values (org, 0, repeat('0', 64))
          on conflict (org_id) do nothing;
        select h.last_seq, h.head_hash into last_seq, head_hash from plan_ledger.chain_heads h where h.org_id = org for update;
      end
      $$;
    revoke all on function plan_ledger.lock_head(uuid) from public;

    create function plan.chain_audit_entry() returns trigger
      language plpgsql security definer set search_path = pg_catalog, plan, plan_ledger
      as $$
      declare
        head record;
        content text;
      begin
        select * into head from plan_ledger.lock_head(new.org_id);
        new.chain_seq := head.last_seq + 1;
        new.prev_hash := head.head_hash;
        if tg_table_name = 'plan_audit_log' then
          content := plan.audit_row_content(new);
        else
          content := plan.audit_tombstone_content(new);
        end if;
        new.row_hash := plan.audit_sha256(new.prev_hash || plan.audit_sha256(content));
        update plan_ledger.chain_heads set last_seq = new.chain_seq, head_hash = new.row_hash, updated_at = now()
          where org_id = new.org_id;
        return new;
      end
      $$;
  `.execute(db);

  // Chain what exists. The owner obeys the tenant policies (FORCE) unless it is a superuser, so
  // they are lifted for this transaction, as are the append-only triggers.
  await sql`
    alter table plan.plan_audit_log no force row level security;
    alter table plan.deleted_plans no force row level security;
    alter table plan.plan_audit_log disable trigger plan_audit_log_append_only;
    alter table plan.deleted_plans disable trigger deleted_plans_append_only;
    do $$
    declare
      entry record;
      r plan.plan_audit_log;
      t plan.deleted_plans;
      org uuid;
      seq bigint := 0;
      head text := repeat('0', 64);
    begin
      -- The head of the org being chained is kept in variables and written once per org: updating
      -- one heads row per entry in a single transaction leaves a version chain as long as the
      -- org's history, which every later update walks.
      for entry in
        select org_id, 0 as kind, id, occurred_at as at from plan.plan_audit_log
        union all
        select org_id, 1 as kind, id, deleted_at as at from plan.deleted_plans
        order by org_id, at, kind, id
      loop
        if org is distinct from entry.org_id then
          if org is not null then
            insert into plan_ledger.chain_heads (org_id, last_seq, head_hash) values (org, seq, head);
          end if;
          org := entry.org_id;
          seq := 0;
          head := repeat('0', 64);
        end if;
        seq := seq + 1;
        if entry.kind = 0 then
          select * into r from plan.plan_audit_log where id = entry.id;
          r.chain_seq := seq;
          update plan.plan_audit_log
            set chain_seq = seq, prev_hash = head,
                row_hash = plan.audit_sha256(head || plan.audit_sha256(plan.audit_row_content(r)))
            where id = entry.id
            returning row_hash into head;
        else
          select * into t from plan.deleted_plans where id = entry.id;
          t.chain_seq := seq;
          update plan.deleted_plans
            set chain_seq = seq, prev_hash = head,
                row_hash = plan.audit_sha256(head || plan.audit_sha256(plan.audit_tombstone_content(t)))
            where id = entry.id
            returning row_hash into head;
        end if;
      end loop;
      if org is not null then
        insert into plan_ledger.chain_heads (org_id, last_seq, head_hash) values (org, seq, head);
      end if;
    end
    $$;
    alter table plan.plan_audit_log enable trigger plan_audit_log_append_only;
    alter table plan.deleted_plans enable trigger deleted_plans_append_only;
    alter table plan.plan_audit_log force row level security;
    alter table plan.deleted_plans force row level security;
  `.execute(db);

  await sql`
    alter table plan.plan_audit_log
      alter column chain_seq set not null,
      alter column prev_hash set not null,
      alter column row_hash set not null,
      add constraint plan_audit_log_chain_hashes check (prev_hash ~ '^[0-9a-f]{64}$' and row_hash ~ '^[0-9a-f]{64}$');
    alter table plan.deleted_plans
      alter column chain_seq set not null,
      alter column prev_hash set not null,
      alter column row_hash set not null,
      add constraint deleted_plans_chain_hashes check (prev_hash ~ '^[0-9a-f]{64}$' and row_hash ~ '^[0-9a-f]{64}$');
    create unique index plan_audit_log_chain_idx on plan.plan_audit_log (org_id, chain_seq);
    create unique index deleted_plans_chain_idx on plan.deleted_plans (org_id, chain_seq);

    create trigger plan_audit_log_chain before insert on plan.plan_audit_log
      for each row execute function plan.chain_audit_entry();
    create trigger deleted_plans_chain before insert on plan.deleted_plans
      for each row execute function plan.chain_audit_entry();

    drop function plan.purge_plan_audit(uuid);
    create function plan.purge_plan_audit(target_plan uuid)
      returns table (rows_purged bigint, rows_sha256 text, chain_links jsonb)
      language plpgsql security definer
      set search_path = pg_catalog, plan
      as $$
      declare
        tenant uuid := nullif(current_setting('app.org_id', true), '')::uuid;
        purged bigint;
        digest text;
        links jsonb;
      begin
        if tenant is null then
          raise exception 'purge_plan_audit needs a tenant (app.org_id)' using errcode = 'insufficient_privilege';
        end if;
        select count(*), encode(sha256(convert_to(coalesce(string_agg(to_jsonb(a)::text, E'\\n' order by a.id), ''), 'UTF8')), 'hex'),
               coalesce(jsonb_agg(jsonb_build_array(a.chain_seq, plan.audit_sha256(plan.audit_row_content(a))) order by a.chain_seq), '[]')
          into purged, digest, links
          from plan.plan_audit_log a where a.org_id = tenant and a.plan_id = target_plan;
        perform set_config('quarry.audit_purge', 'on', true);
        delete from plan.plan_audit_log where org_id = tenant and plan_id = target_plan;
        perform set_config('quarry.audit_purge', 'off', true);
        return query select purged, digest, links;
      end
      $$;

    -- The checkpointer's two cross-org calls. Heads whose newest entry no checkpoint covers yet:
    create function plan.audit_heads_to_checkpoint(max_orgs integer)
      returns table (org_id uuid, entries bigint, head_hash text)
      language sql stable security definer set search_path = pg_catalog, plan_ledger
      as $$
        select h.org_id, h.last_seq, h.head_hash from plan_ledger.chain_heads h
        where h.last_seq > coalesce((select max(c.entries) from plan_ledger.checkpoints c where c.org_id = h.org_id), 0)
        order by h.updated_at, h.org_id
        limit max_orgs
      $$;
    create function plan.record_audit_checkpoint(
        org uuid, entries bigint, head_hash text, signed_at timestamptz, key_id text, signature text)
      returns void
      language sql volatile security definer set search_path = pg_catalog, plan_ledger
      as $$
        insert into plan_ledger.checkpoints (org_id, entries, head_hash, signed_at, key_id, signature)
        values (org, entries, head_hash, signed_at, key_id, signature)
        on conflict (org_id, entries) do nothing
      $$;
    revoke all on function plan.audit_heads_to_checkpoint(integer) from public;
    revoke all on function plan.record_audit_checkpoint(uuid, bigint, text, timestamptz, text, text) from public;
    grant execute on function plan.audit_heads_to_checkpoint(integer) to quarry_plan_maintenance;
    grant execute on function plan.record_audit_checkpoint(uuid, bigint, text, timestamptz, text, text)
      to quarry_plan_maintenance;
  `.execute(db);
}
