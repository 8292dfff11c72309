import { type Insertable, sql } from 'kysely';
import type { ArtifactDatabase } from './schema.js';
import type { Trx } from './tenant.js';

// Source documents: the row beside a research artifact of source 'document' (its original file
// and unit spans), always inside the caller's tenant transaction.

/** What describes a document (everything but its bytes). */
const INFO = [
  'artifact_id',
  'sha256',
  'size_bytes',
  'file_name',
  'media_type',
  'format',
  'unit_kind',
  'units',
  'metadata',
  'author',
  'published_at',
  'source_url',
  'warnings',
  'fetch_url',
  'fetch_final_url',
  'fetched_at',
  'fetch_status',
  'fetch_content_type',
  'fetch_etag',
  'fetch_last_modified',
] as const;

export type DocumentInfoRow = Pick<ArtifactDatabase['artifact.documents'], (typeof INFO)[number]> & {
  size_bytes: string;
  units: [number, number, number][];
  metadata: Record<string, string>;
};

/**
 * Serializes the imports of one file (same SHA-256) in the org until the transaction ends, so two
 * concurrent imports of the same bytes store one document.
 */
export async function lockDigest(trx: Trx, orgId: string, sha256: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`artifact.documents/${orgId}/${sha256}`}, 0))`.execute(trx);
}

/** The org's document with these bytes, with its artifact's title. */
export async function findDocumentByDigest(
  trx: Trx,
  sha256: string,
): Promise<(DocumentInfoRow & { title: string }) | undefined> {
  const row = await trx
    .selectFrom('artifact.documents as d')
    .innerJoin('artifact.research_artifacts as a', 'a.id', 'd.artifact_id')
    .select(INFO.map((c) => `d.${c}` as const))
    .select('a.title')
    .where('d.sha256', '=', sha256)
    .executeTakeFirst();
  return row as (DocumentInfoRow & { title: string }) | undefined;
}

/** A document's description, by its artifact id. */
export async function readDocumentInfo(trx: Trx, artifactId: string): Promise<DocumentInfoRow | undefined> {
  const row = await trx
    .selectFrom('artifact.documents')
    .select(INFO)
    .where('artifact_id', '=', artifactId)
    .executeTakeFirst();
  return row as DocumentInfoRow | undefined;
}

/** A document's original bytes. */
export async function readOriginal(trx: Trx, artifactId: string): Promise<Buffer | undefined> {
  const row = await trx
    .selectFrom('artifact.documents')
    .select('original')
    .where('artifact_id', '=', artifactId)
    .executeTakeFirst();
  return row?.original;
}

export async function insertDocument(trx: Trx, row: Insertable<ArtifactDatabase['artifact.documents']>): Promise<void> {
  await trx.insertInto('artifact.documents').values(row).execute();
}
