import { enableTenantRls } from '@quarry/db';
import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// Source documents (import_document): a document is a research artifact (source 'document', its
// converted text in content_text, so every read, list, search and deletion path serves it as it
// is) plus one row here with its original file, byte for byte, and where each unit (page, slide,
// sheet, section) of the text starts and ends. The same bytes in one org are one document: the
// SHA-256 is unique per org. The row goes with its artifact (on delete cascade).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table artifact.research_artifacts
      drop constraint research_artifacts_source_check,
      add constraint research_artifacts_source_check check (source in ('client', 'subagent', 'document'));

    create table artifact.documents (
      artifact_id uuid primary key references artifact.research_artifacts (id) on delete cascade,
      org_id uuid not null,
      sha256 text not null check (sha256 ~ '^[0-9a-f]{64}$'),
      size_bytes bigint not null check (size_bytes > 0),
      file_name text not null check (length(file_name) between 1 and 255),
      media_type text not null check (length(media_type) between 1 and 200),
      format text not null check (format in ('pdf', 'html', 'docx', 'pptx', 'xlsx', 'markdown', 'text')),
      unit_kind text not null check (unit_kind in ('page', 'slide', 'sheet', 'section')),
      -- [[number, start, end], …]: character spans into the artifact's content_text.
      units jsonb not null check (jsonb_typeof(units) = 'array'),
      metadata jsonb not null default '{}' check (jsonb_typeof(metadata) = 'object'),
      author text,
      published_at text,
      source_url text,
      warnings text[] not null default '{}',
      original bytea not null,
      created_at timestamptz not null default now(),
      check (octet_length(original) = size_bytes)
    );
    create unique index documents_sha256_idx on artifact.documents (org_id, sha256);
  `.execute(db);
  await enableTenantRls(db, 'artifact.documents');
}
