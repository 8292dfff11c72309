import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// The extraction service's upkeep crosses orgs, which the app role never can: it goes through
// one SECURITY DEFINER function running as this schema's owner, callable only by members of the
// nologin role quarry_extraction_maintenance (grantExtractionMaintenance). The owner reads every
// row through read-only policies; each write runs under the row's own tenant (app.org_id, put
// back as the caller had it), so it passes the same tenant_isolation policies as a request's.
//
// extraction.maintain(owner, lease, max_jobs):
// - deletes expired pending submissions and jobs;
// - a running job whose lease lapsed (its instance stopped) and that has been tried fewer than
//   max_attempts times is leased to `owner` (attempts + 1) and returned, for it to run again;
// - one tried max_attempts times already is failed (EXTRACTION_INTERRUPTED): it keeps stopping
//   whoever runs it.
// Rows another transaction holds are skipped (SKIP LOCKED) and taken by the next sweep, so
// instances sweeping at once never block or take the same job.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create policy maintenance_owner_read on extraction.pending_submissions for select to current_user using (true);
    comment on policy maintenance_owner_read on extraction.pending_submissions is
      'quarry:tenant-exempt: expired submissions of every org are deleted only through the security definer function extraction.maintain, which runs as this owner and writes each row under its own tenant';
    create policy maintenance_owner_read on extraction.jobs for select to current_user using (true);
    comment on policy maintenance_owner_read on extraction.jobs is
      'quarry:tenant-exempt: abandoned jobs of every org are found only through the security definer function extraction.maintain, which runs as this owner, writes each row under its own tenant and returns ids, never contents';

    create function extraction.maintain(owner uuid, lease interval, max_attempts integer, max_jobs integer)
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
    revoke all on function extraction.maintain(uuid, interval, integer, integer) from public;

    do $$
    begin
      if not exists (select 1 from pg_roles where rolname = 'quarry_extraction_maintenance') then
        create role quarry_extraction_maintenance nologin;
      end if;
    exception when duplicate_object or unique_violation then null;
    end
    $$;
    grant usage on schema extraction to quarry_extraction_maintenance;
    grant execute on function extraction.maintain(uuid, interval, integer, integer) to quarry_extraction_maintenance;
  `.execute(db);
}
