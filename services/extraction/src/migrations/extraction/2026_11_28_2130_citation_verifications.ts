import { enableTenantRls } from '@quarry/db';
import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// citation_verifications (docs/adr/0060): what a verify_citations handle refers to, and once its
// verdicts are in, the record of the verification. `claims` holds each claim with its citations,
// the sources found, the model-free findings and the passage ids offered; `passages` the offered
// passages (source, span, page, text). `principal` is the digest of the user and token that asked
// (no one else can submit). `verdicts`, `report_artifact_id`, `support_ratio` and `submitted_at`
// are written once, when the verdicts are accepted; a submitted row is the audit record of the
// verification and is kept; an unsubmitted one stops working at expires_at and is deleted by the
// upkeep sweep: extraction.maintain is replaced by the same function plus that deletion (its
// grants stay with it), reading the table through a read-only policy like the others.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table extraction.citation_verifications (
      id uuid primary key,
      org_id uuid not null,
      principal text not null check (length(principal) between 1 and 64),
      plan_id uuid,
      output_id uuid,
      claims jsonb not null check (jsonb_typeof(claims) = 'array'),
      passages jsonb not null check (jsonb_typeof(passages) = 'array'),
      created_at timestamptz not null,
      expires_at timestamptz not null,
      verdicts jsonb check (verdicts is null or jsonb_typeof(verdicts) = 'array'),
      report_artifact_id uuid,
      support_ratio double precision check (support_ratio between 0 and 1),
      submitted_at timestamptz,
      check ((submitted_at is null) = (verdicts is null)),
      check ((submitted_at is null) = (report_artifact_id is null))
    );
    create index citation_verifications_plan_idx on extraction.citation_verifications (plan_id) where plan_id is not null;
  `.execute(db);
  await enableTenantRls(db, 'extraction.citation_verifications');
  await sql`
    create policy maintenance_owner_read on extraction.citation_verifications for select to current_user using (true);
    comment on policy maintenance_owner_read on extraction.citation_verifications is
      'quarry:tenant-exempt: expired unsubmitted verifications of every org are deleted only through the security definer function extraction.maintain, which runs as this owner and writes each row under its own tenant';

    create or replace function extraction.maintain(owner uuid, lease interval, max_attempts integer, max_jobs integer)
      returns table (job_id uuid, job_org_id uuid)
      language plpgsql volatile security definer
      set search_path = pg_catalog, extraction
      as $$
      declare
        candidate record;
        previous text := current_setting('app.org_id', true);
      begin
        if owner is null or lease is null or lease <= interval '0' or max_attempts is null or max_attempts < 1
          or max_jobs is null or max_jobs < 1 then
          raise exception 'maintain: owner, a positive lease, max_attempts >= 1 and max_jobs >= 1 are required'
            using errcode = 'invalid_parameter_value';
        end if;
        for candidate in
          select distinct p.org_id from extraction.pending_submissions p where p.expires_at < now()
        loop
          perform set_config('app.org_id', candidate.org_id::text, true);
          delete from extraction.pending_submissions p where p.org_id = candidate.org_id and p.expires_at < now();
        end loop;
        for candidate in
          select distinct v.org_id from extraction.citation_verifications v
          where v.submitted_at is null and v.expires_at < now()
        loop
          perform set_config('app.org_id', candidate.org_id::text, true);
          delete from extraction.citation_verifications v
            where v.org_id = candidate.org_id and v.submitted_at is null and v.expires_at < now();
        end loop;
        for candidate in
          select distinct j.org_id from extraction.jobs j where j.expires_at < now()
        loop
          perform set_config('app.org_id', candidate.org_id::text, true);
          delete from extraction.jobs j where j.org_id = candidate.org_id and j.expires_at < now();
        end loop;
        for candidate in
          select j.id, j.org_id from extraction.jobs j
          where j.status = 'running' and j.lease_expires_at < now()
          order by j.lease_expires_at
          limit max_jobs
        loop
          perform set_config('app.org_id', candidate.org_id::text, true);
          perform 1 from extraction.jobs j
            where j.id = candidate.id and j.status = 'running' and j.lease_expires_at < now()
            for update skip locked;
          if found then
            update extraction.jobs j set
              status = case when j.attempts >= max_attempts then 'failed' else 'running' end,
              error = case when j.attempts >= max_attempts then jsonb_build_object(
                'code', 'EXTRACTION_INTERRUPTED', 'status', 14,
                'message', 'The extraction was interrupted ' || j.attempts || ' times (the service running it stopped) and was given up. Call extract_data again.')
                else null end,
              lease_owner = case when j.attempts >= max_attempts then null else owner end,
              lease_expires_at = case when j.attempts >= max_attempts then null else now() + lease end,
              attempts = case when j.attempts >= max_attempts then j.attempts else j.attempts + 1 end,
              updated_at = now()
            where j.id = candidate.id;
            if exists (select 1 from extraction.jobs j where j.id = candidate.id and j.status = 'running') then
              job_id := candidate.id;
              job_org_id := candidate.org_id;
              return next;
            end if;
          end if;
        end loop;
        perform set_config('app.org_id', coalesce(previous, ''), true);
      end
      $$;
  `.execute(db);
}
