import { enableTenantRls } from '@quarry/db';
import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// Model spend per org and UTC day (docs/adr/0061-per-org-quotas.md): the extractions run on a
// server model (Anthropic or OpenAI-compatible: the heuristic and the client's own model cost
// Quarry nothing) and the tokens they used. A day's row is locked by the upsert that admits an
// extraction, so concurrent extractions of one org are admitted one after another. org_quotas:
// the limits the operator set for an org (null: the service's default).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table extraction.org_daily_usage (
      org_id uuid not null,
      day date not null,
      extractions integer not null default 0 check (extractions >= 0),
      model_tokens bigint not null default 0 check (model_tokens >= 0),
      primary key (org_id, day)
    );
    create table extraction.org_quotas (
      org_id uuid primary key,
      extractions_per_day integer check (extractions_per_day >= 0),
      model_tokens_per_day bigint check (model_tokens_per_day >= 0),
      updated_at timestamptz not null default now()
    );
  `.execute(db);
  await enableTenantRls(db, 'extraction.org_daily_usage');
  await enableTenantRls(db, 'extraction.org_quotas');
}
