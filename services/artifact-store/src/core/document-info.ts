import type { artifactV1 } from '@quarry/contracts';
import type { DocumentInfoRow } from '../store/documents.js';

/** A stored document as the tools describe it (everything but its bytes). Pure. */
export function documentInfoOf(row: DocumentInfoRow): artifactV1.DocumentInfo {
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
  };
}
