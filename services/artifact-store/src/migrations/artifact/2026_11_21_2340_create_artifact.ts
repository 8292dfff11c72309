import { enableTenantRls } from '@quarry/db';
import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// Plans and steps live in the plan engine's schema, so plan_id/step_id carry no foreign key:
// the service checks them through the plan engine (ResolvePlanReference) before writing.
// Kinds are text with CHECK constraints, spelled as the tools spell them.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table artifact.research_artifacts (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null,
      plan_id uuid,
      step_id uuid,
      artifact_type text not null
        check (artifact_type in ('analysis', 'synthesis', 'comparison', 'summary', 'source_list', 'finding')),
      -- Who stored it: a client through store_research, or a subagent through submit_subagent_report.
      source text not null check (source in ('client', 'subagent')),
      title text not null check (length(title) between 1 and 500),
      content jsonb not null check (jsonb_typeof(content) = 'object'),
      content_text text,
      confidence double precision check (confidence >= 0 and confidence <= 1),
      tags text[] not null default '{}',
      session_id text,
      created_at timestamptz not null default now(),
      check (step_id is null or plan_id is not null)
    );
    -- ListPlanArtifacts: a plan's artifacts, oldest first.
    create index research_artifacts_plan_idx on artifact.research_artifacts (plan_id, created_at, id) where plan_id is not null;

    -- Deliverables. Text forms keep their text, binary documents their bytes (exactly one), and
    -- content_size (UTF-8 or decoded bytes) is bounded here as well as in the service.
    create table artifact.research_outputs (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null,
      plan_id uuid not null,
      media_type text not null
        check (media_type in ('conversation', 'markdown', 'html', 'word', 'excel', 'powerpoint')),
      title text not null check (length(title) between 1 and 500),
      content_text text,
      content_bytes bytea,
      content_size integer not null check (content_size between 1 and 2097152),
      content_summary text,
      formatting_notes_used text,
      session_id text,
      created_at timestamptz not null default now(),
      check ((content_text is null) <> (content_bytes is null)),
      check ((media_type in ('word', 'excel', 'powerpoint')) = (content_bytes is not null))
    );
    create index research_outputs_plan_idx on artifact.research_outputs (plan_id, created_at, id);
  `.execute(db);

  for (const table of ['artifact.research_artifacts', 'artifact.research_outputs']) {
    await enableTenantRls(db, table);
  }
}
