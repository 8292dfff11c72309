import { enableTenantRls } from '@quarry/db';
import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// Extraction results (extract_data), stored by the extraction service through StoreExtractionResult.
// As for artifacts, plan_id/step_id carry no foreign key (the plan engine checks them), and
// neither does source_artifact_id: the service checks it under the caller's tenant, because a
// foreign key check would see other orgs' artifacts. A result was made either from a stored
// artifact or from text sent with the call, never both; spans in `fields` are offsets into
// that text.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table artifact.extraction_results (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null,
      plan_id uuid,
      step_id uuid,
      data jsonb not null check (jsonb_typeof(data) = 'object'),
      -- Confidence per extracted value, keyed by JSON Pointer.
      field_confidences jsonb not null check (jsonb_typeof(field_confidences) = 'object'),
      -- [{ path, grounding, spanStart?, spanEnd?, confidence }], one per extracted value.
      fields jsonb not null check (jsonb_typeof(fields) = 'array'),
      overall_confidence double precision not null check (overall_confidence >= 0 and overall_confidence <= 1),
      provider text not null check (provider in ('anthropic', 'openai', 'sampling', 'heuristic')),
      model text not null check (length(model) between 1 and 200),
      extraction_schema jsonb not null check (jsonb_typeof(extraction_schema) = 'object'),
      schema_hash text not null check (schema_hash ~ '^[0-9a-f]{64}$'),
      schema_version integer not null check (schema_version >= 1),
      source_artifact_id uuid,
      source_text text,
      source_url text,
      source_page integer check (source_page >= 1),
      source_section text,
      input_tokens bigint check (input_tokens >= 0),
      output_tokens bigint check (output_tokens >= 0),
      created_at timestamptz not null default now(),
      check (step_id is null or plan_id is not null),
      check ((source_artifact_id is null) <> (source_text is null))
    );
    -- A plan's extractions, oldest first.
    create index extraction_results_plan_idx on artifact.extraction_results (plan_id, created_at, id) where plan_id is not null;
    -- The extractions made from an artifact.
    create index extraction_results_source_artifact_idx on artifact.extraction_results (source_artifact_id) where source_artifact_id is not null;
  `.execute(db);

  await enableTenantRls(db, 'artifact.extraction_results');
}
