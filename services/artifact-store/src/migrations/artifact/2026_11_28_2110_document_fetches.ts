import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// Documents imported with import_url keep where they came from: the URL asked for, the URL the
// bytes came from after redirects, when, the final HTTP status, and the Content-Type, ETag and
// Last-Modified the server sent. All null for a document that was not fetched; the URL and the
// time always come together.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table artifact.documents
      add column fetch_url text check (length(fetch_url) between 1 and 2048),
      add column fetch_final_url text,
      add column fetched_at timestamptz,
      add column fetch_status smallint check (fetch_status between 100 and 599),
      add column fetch_content_type text,
      add column fetch_etag text,
      add column fetch_last_modified text,
      add constraint documents_fetch_check check (
        (fetch_url is null) = (fetched_at is null)
        and (fetch_url is null) = (fetch_final_url is null)
        and (fetch_url is null) = (fetch_status is null)
      );
  `.execute(db);
}
