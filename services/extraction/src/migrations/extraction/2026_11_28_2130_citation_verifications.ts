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
// verification and is kept; an unsubmitted one stops working at expires_at.
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
}
