import { enableTenantRls } from '@quarry/db';
import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// The extraction service's own state, short-lived and per org (docs/adr/0044):
//
// pending_submissions: what a submit_extraction handle refers to, so the caller sends back only
// its data. The handle (signed claims, core/handle.ts) carries the row's id; the row keeps the
// schema and the source text (or the source artifact's id: its text is reloaded) until
// expires_at. `principal` is the digest of the user and token that asked (a lookup by anyone else
// finds nothing). Expired rows are deleted by the maintenance sweep.
//
// jobs: an extract_data whose model could not answer within the caller's budget (CallBudget),
// finishing in this service. `request` is the ExtractDataRequest (proto3 JSON, without the
// gateway's fields), enough to run it again; the caller's identity is kept to act for the org as
// the call did. A running job is leased by one service instance (lease_owner until
// lease_expires_at, renewed while it runs); one whose lease lapsed was left by an instance that
// stopped, and the maintenance sweep hands it to another. `result` is the completed
// ExtractDataResponse (proto3 JSON), `error` the failure as the caller would have seen it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table extraction.pending_submissions (
      id uuid primary key,
      org_id uuid not null,
      principal text not null check (length(principal) between 1 and 64),
      extraction_schema jsonb not null check (jsonb_typeof(extraction_schema) = 'object'),
      schema_hash text not null check (schema_hash ~ '^[0-9a-f]{64}$'),
      source_text text,
      source_artifact_id uuid,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      check ((source_text is null) <> (source_artifact_id is null))
    );
    create index pending_submissions_expiry_idx on extraction.pending_submissions (expires_at);

    create table extraction.jobs (
      id uuid primary key,
      org_id uuid not null,
      user_id uuid,
      token_id uuid,
      service_name text,
      request_id text not null,
      request jsonb not null check (jsonb_typeof(request) = 'object'),
      provider text not null check (length(provider) between 1 and 40),
      status text not null check (status in ('running', 'completed', 'failed')),
      result jsonb,
      error jsonb,
      attempts integer not null check (attempts >= 1),
      lease_owner uuid,
      lease_expires_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      expires_at timestamptz not null,
      check ((status = 'completed') = (result is not null)),
      check ((status = 'failed') = (error is not null)),
      check ((status = 'running') = (lease_expires_at is not null))
    );
    create index jobs_expiry_idx on extraction.jobs (expires_at);
    create index jobs_lease_idx on extraction.jobs (lease_expires_at) where status = 'running';
  `.execute(db);
  await enableTenantRls(db, 'extraction.pending_submissions');
  await enableTenantRls(db, 'extraction.jobs');
}
