import { enableTenantRls } from '@quarry/db';
import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// A source document's figures and tables (docs/adr/0058-figures-and-tables.md). Figures are rows
// of their own, each with its image bytes (read one at a time, never with the document's
// description); tables are small text and ride on the document row as JSON. Both go with their
// document (on delete cascade), which goes with its artifact.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table artifact.document_figures (
      artifact_id uuid not null references artifact.documents (artifact_id) on delete cascade,
      org_id uuid not null,
      -- Its number in the document, from 1, in reading order.
      number integer not null check (number >= 1),
      -- The unit (page, slide, sheet, section) it is on, and its order among that unit's figures.
      unit integer not null check (unit >= 1),
      index_in_unit integer not null check (index_in_unit >= 1),
      caption text,
      media_type text not null check (media_type ~ '^image/'),
      width integer not null check (width > 0),
      height integer not null check (height > 0),
      -- [left, bottom, right, top] in PDF points, for figures of PDFs.
      box double precision[] check (box is null or cardinality(box) = 4),
      sha256 text not null check (sha256 ~ '^[0-9a-f]{64}$'),
      size_bytes integer not null check (size_bytes > 0),
      bytes bytea not null,
      primary key (artifact_id, number),
      check (octet_length(bytes) = size_bytes)
    );

    -- [{unit, index, caption?, rows: [[cell, …], …], box?}, …] in reading order.
    alter table artifact.documents
      add column tables jsonb not null default '[]' check (jsonb_typeof(tables) = 'array');
  `.execute(db);
  await enableTenantRls(db, 'artifact.document_figures');
}
