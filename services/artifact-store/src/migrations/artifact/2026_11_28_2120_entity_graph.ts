import { enableTenantRls } from '@quarry/db';
import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// The entity graph (upsert_entities, get_entity_graph; docs/adr/0059-entity-graph-in-postgresql.md).
// A graph belongs to an org and, optionally, to one plan: `scope` is the plan's id, or the nil
// UUID for the org's own graph, so one unique key covers both. An entity is found by its type
// and any of its normalised names (its name and its aliases, one row each in entity_names), so
// merging by name or alias is one unique-index lookup. Relations are directed and typed, one row
// per (from, to, type); each holds while it has evidence: evidence points at a research artifact
// (on delete cascade), and a relation whose last evidence goes is deleted with it, so the graph
// never shows a relation nothing supports. Every change is written to entity_audit, which, like
// the other audit trails, refuses UPDATE, DELETE and TRUNCATE.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table artifact.entities (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null,
      plan_id uuid,
      scope uuid not null,
      type text not null check (length(type) between 1 and 60),
      name text not null check (length(name) between 1 and 300),
      aliases text[] not null default '{}',
      attributes jsonb not null default '{}' check (jsonb_typeof(attributes) = 'object'),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      check (scope = coalesce(plan_id, '00000000-0000-0000-0000-000000000000'::uuid)),
      unique (org_id, id)
    );
    create index entities_plan_idx on artifact.entities (plan_id) where plan_id is not null;

    create table artifact.entity_names (
      org_id uuid not null,
      scope uuid not null,
      type text not null,
      -- NFKC, case-folded, whitespace collapsed (core/entity-names.ts).
      norm text not null check (length(norm) between 1 and 300),
      entity_id uuid not null,
      primary key (org_id, scope, type, norm),
      foreign key (org_id, entity_id) references artifact.entities (org_id, id) on delete cascade
    );
    -- get_entity_graph by name or alias prefix, any type.
    create index entity_names_prefix_idx on artifact.entity_names (org_id, scope, norm text_pattern_ops);
    create index entity_names_entity_idx on artifact.entity_names (entity_id);

    create table artifact.entity_relations (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null,
      from_id uuid not null,
      to_id uuid not null,
      type text not null check (length(type) between 1 and 60),
      created_at timestamptz not null default now(),
      unique (org_id, from_id, to_id, type),
      foreign key (org_id, from_id) references artifact.entities (org_id, id) on delete cascade,
      foreign key (org_id, to_id) references artifact.entities (org_id, id) on delete cascade
    );
    -- The frontier query walks relations both ways: by from_id (the unique index) and by to_id.
    create index entity_relations_to_idx on artifact.entity_relations (org_id, to_id);

    create table artifact.relation_evidence (
      id bigint generated always as identity primary key,
      org_id uuid not null,
      relation_id uuid not null references artifact.entity_relations (id) on delete cascade,
      artifact_id uuid not null references artifact.research_artifacts (id) on delete cascade,
      page integer check (page >= 1),
      start_at integer check (start_at >= 0),
      end_at integer check (end_at >= 0),
      quote text check (length(quote) between 1 and 1000),
      created_at timestamptz not null default now(),
      check (start_at is null or end_at is null or end_at > start_at)
    );
    create unique index relation_evidence_same_idx on artifact.relation_evidence (
      relation_id, artifact_id, coalesce(page, 0), coalesce(start_at, -1), coalesce(end_at, -1), md5(coalesce(quote, ''))
    );
    create index relation_evidence_artifact_idx on artifact.relation_evidence (artifact_id);

    -- A relation holds while it has evidence: when an artifact's deletion takes a relation's last
    -- evidence, the relation goes too (in the deleting transaction, under its tenant).
    create function artifact.drop_unsupported_relations() returns trigger language plpgsql as $$
    begin
      delete from artifact.entity_relations r
       where r.id in (select distinct relation_id from gone)
         and not exists (select 1 from artifact.relation_evidence e where e.relation_id = r.id);
      return null;
    end
    $$;
    create trigger relation_evidence_last_gone
      after delete on artifact.relation_evidence
      referencing old table as gone
      for each statement execute function artifact.drop_unsupported_relations();

    create table artifact.entity_audit (
      id bigint generated always as identity primary key,
      org_id uuid not null,
      occurred_at timestamptz not null default now(),
      request_id text not null,
      plan_id uuid,
      action text not null check (action in ('entity_created', 'entity_changed', 'relation_created', 'evidence_added')),
      entity_id uuid,
      relation_id uuid,
      details jsonb not null default '{}' check (jsonb_typeof(details) = 'object')
    );
    create index entity_audit_org_time_idx on artifact.entity_audit (org_id, occurred_at desc, id desc);

    create function artifact.refuse_entity_audit_change() returns trigger language plpgsql as $$
    begin
      raise exception 'artifact.entity_audit is insert-only: % is not allowed', tg_op
        using errcode = 'restrict_violation';
    end
    $$;
    create trigger entity_audit_insert_only
      before update or delete on artifact.entity_audit
      for each statement execute function artifact.refuse_entity_audit_change();
    create trigger entity_audit_no_truncate
      before truncate on artifact.entity_audit
      for each statement execute function artifact.refuse_entity_audit_change();
  `.execute(db);

  for (const table of [
    'artifact.entities',
    'artifact.entity_names',
    'artifact.entity_relations',
    'artifact.relation_evidence',
    'artifact.entity_audit',
  ]) {
    await enableTenantRls(db, table);
  }
}
