import type { artifactV1 } from '@quarry/contracts';
import type { ConvertedDocument, DocumentUnit } from '@quarry/documents';
import { artifactErrors } from '../errors.js';
import type { NewRow } from '../store/schema.js';
import { titleFrom } from './indexed-text.js';
import { documentScanInput, flagsColumn } from './instruction-flags.js';
import type { ContentEvent } from './writes.js';

/**
 * What import_document stores for a converted document, decided from the request and the
 * conversion alone: the research artifact (source 'document', its text the converted text), the
 * document row beside it (original bytes, SHA-256, unit spans) and its content.created event,
 * which carries the units so the indexer cuts chunks within pages. Pure.
 */

/** The type a document is filed under among research artifacts: a source, for source lists and searches. */
const DOCUMENT_ARTIFACT_TYPE = 'source_list';

/** The original file as received. */
export interface OriginalFile {
  bytes: Buffer;
  sha256: string;
  fileName: string;
}

export interface DocumentWrite {
  row: NewRow<'artifact.research_artifacts'>;
  document: Omit<NewRow<'artifact.documents'>, 'artifact_id' | 'org_id'>;
  event: ContentEvent;
}

/** Refuses a step without its plan, before anything is converted. */
export function checkImportRequest(req: artifactV1.ImportDocumentRequest): void {
  if (req.stepId && !req.planId)
    throw artifactErrors.INVALID_ARGUMENT({ field: 'stepId', rule: 'needs planId (the plan the step belongs to)' });
  if (req.data.length === 0) throw artifactErrors.INVALID_ARGUMENT({ field: 'data', rule: 'is empty' });
}

/**
 * Units that can be trusted as spans into `text`: within it, in order, not overlapping. A
 * conversion that found none gets one section spanning the whole text, so every document has at
 * least one unit to read and cite.
 */
function spansOf(text: string, units: readonly DocumentUnit[]): DocumentUnit[] {
  const out: DocumentUnit[] = [];
  let at = 0;
  for (const u of units) {
    const start = Math.max(at, Math.min(u.start, text.length));
    const end = Math.max(start, Math.min(u.end, text.length));
    out.push({ kind: u.kind, number: u.number, start, end });
    at = end;
  }
  return out.length > 0 ? out : [{ kind: 'section', number: 1, start: 0, end: text.length }];
}

export function documentWrite(
  req: artifactV1.ImportDocumentRequest,
  converted: ConvertedDocument,
  original: OriginalFile,
): DocumentWrite {
  const title = req.title ?? (converted.title?.trim() ? titleFrom(converted.title, 500) : original.fileName);
  const units = spansOf(converted.text, converted.units);
  const unitKind = units[0]!.kind;
  const about = {
    fileName: original.fileName,
    mediaType: converted.mediaType,
    format: converted.format,
    sizeBytes: original.bytes.length,
    sha256: original.sha256,
    unitKind,
    unitCount: units.length,
    ...(converted.author ? { author: converted.author } : {}),
    ...(converted.publishedAt ? { publishedAt: converted.publishedAt } : {}),
    ...(converted.canonicalUrl ? { sourceUrl: converted.canonicalUrl } : {}),
  };
  return {
    row: {
      plan_id: req.planId ?? null,
      step_id: req.stepId ?? null,
      artifact_type: DOCUMENT_ARTIFACT_TYPE,
      source: 'document',
      title,
      content: JSON.stringify({ document: about }),
      content_text: converted.text,
      confidence: null,
      tags: [],
      instruction_flags: flagsColumn(documentScanInput(converted.text, title, converted.format, original.bytes)),
      idempotency_key: null,
      request_hash: null,
    },
    document: {
      sha256: original.sha256,
      size_bytes: original.bytes.length,
      file_name: original.fileName,
      media_type: converted.mediaType,
      format: converted.format,
      unit_kind: unitKind,
      units: JSON.stringify(units.map((u) => [u.number, u.start, u.end])),
      metadata: JSON.stringify(converted.metadata),
      author: converted.author ?? null,
      published_at: converted.publishedAt ?? null,
      source_url: converted.canonicalUrl ?? null,
      warnings: converted.warnings,
      original: original.bytes,
    },
    event: {
      sourceTable: 'research_artifact',
      planId: req.planId,
      stepId: req.stepId,
      artifactType: DOCUMENT_ARTIFACT_TYPE,
      title,
      text: converted.text,
      units,
    },
  };
}
