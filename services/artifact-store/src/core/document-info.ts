import type { artifactV1 } from '@quarry/contracts';
import type { DocumentInfoRow } from '../store/documents.js';

/** Where import_url fetched a document from; undefined for one that was not fetched. */
function fetchOf(row: DocumentInfoRow): artifactV1.DocumentFetch | undefined {
  if (row.fetch_url === null || row.fetched_at === null) return undefined;
  return {
    requestedUrl: row.fetch_url,
    finalUrl: row.fetch_final_url ?? row.fetch_url,
    fetchedAt: row.fetched_at,
    httpStatus: row.fetch_status ?? 0,
    contentType: row.fetch_content_type ?? undefined,
    etag: row.fetch_etag ?? undefined,
    lastModified: row.fetch_last_modified ?? undefined,
  };
}

/** A stored document as the tools describe it (everything but its bytes). Pure. */
export function documentInfoOf(row: DocumentInfoRow): artifactV1.DocumentInfo {
  const fetched = fetchOf(row);
  return {
    fileName: row.file_name,
    mediaType: row.media_type,
    format: row.format,
    sizeBytes: Number(row.size_bytes),
    sha256: row.sha256,
    unitKind: row.unit_kind,
    unitCount: row.units.length,
    author: row.author ?? undefined,
    publishedAt: row.published_at ?? undefined,
    sourceUrl: row.source_url ?? undefined,
    warnings: row.warnings,
    metadata: row.metadata,
    ...(fetched ? { fetched } : {}),
  };
}
