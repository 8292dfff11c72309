import { enableTenantRls } from '@quarry/db';
import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// Storage quotas (docs/adr/0061-per-org-quotas.md). Each artifact and research output records the
// bytes it counts against its org (`stored_bytes`: title, content, text and, for a source
// document, its original file), so a deletion frees exactly what the write charged. `org_usage`
// holds each org's running totals; a write adds to its org's row inside the storing transaction
// and is refused (rolled back) past the limit, and the row's lock orders concurrent writes of one
// org, so no two of them pass the limit together. `org_quotas` holds the limits the operator set
// for an org (null: the service's default, its configuration). Existing rows are measured here
// as the service measures new ones (content by its JSON text) and summed.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table artifact.research_artifacts add column stored_bytes bigint not null default 0 check (stored_bytes >= 0);
    alter table artifact.research_outputs add column stored_bytes bigint not null default 0 check (stored_bytes >= 0);

    update artifact.research_artifacts a set stored_bytes =
      octet_length(a.title) + octet_length(a.content::text) + coalesce(octet_length(a.content_text), 0)
      + coalesce((select d.size_bytes from artifact.documents d where d.artifact_id = a.id), 0);
    update artifact.research_outputs set stored_bytes =
      octet_length(title) + content_size + coalesce(octet_length(content_summary), 0);

    create table artifact.org_usage (
      org_id uuid primary key,
      stored_bytes bigint not null default 0 check (stored_bytes >= 0),
      artifacts bigint not null default 0 check (artifacts >= 0)
    );
    insert into artifact.org_usage (org_id, stored_bytes, artifacts)
      select org_id, sum(stored_bytes), count(*) from (
        select org_id, stored_bytes from artifact.research_artifacts
        union all
        select org_id, stored_bytes from artifact.research_outputs
      ) stored
      group by org_id;

    create table artifact.org_quotas (
      org_id uuid primary key,
      storage_bytes bigint check (storage_bytes >= 0),
      artifacts bigint check (artifacts >= 0),
      updated_at timestamptz not null default now()
    );
  `.execute(db);
  await enableTenantRls(db, 'artifact.org_usage');
  await enableTenantRls(db, 'artifact.org_quotas');
}
