import type { artifactV1 } from '@quarry/contracts';
import type { ConvertedDocument, DocumentUnit } from '@quarry/documents';
import { artifactErrors } from '../errors.js';
import type { NewRow } from '../store/schema.js';
import { figureRows, storedTables, type FigureRow } from './document-parts.js';
import { titleFrom } from './indexed-text.js';
import { artifactBytes } from './storage-quota.js';
import { documentScanInput, flagsColumn } from './instruction-flags.js';
import type { ContentEvent } from './writes.js';

/**
 * What import_document stores for a converted document, decided from the request and the
 * conversion alone: the research artifact (source 'document', its text the converted text), the
 * document row beside it (original bytes, SHA-256, unit spans, tables), its figures (each image
 * with its page, caption and SHA-256) and its content.created event,
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
  figures: FigureRow[];
  event: ContentEvent;
}

/** Refuses a step without its plan and an empty file, before anything is converted. */
export function checkImportRequest(req: artifactV1.ImportDocumentRequest): void {
  checkPlanReference(req);
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

/** What the caller said about a document, whichever way it came in. */
export type DocumentRequest = Pick<artifactV1.ImportDocumentRequest, 'title' | 'planId' | 'stepId'>;

/** Refuses a step without its plan. */
export function checkPlanReference(req: DocumentRequest): void {
  if (req.stepId && !req.planId)
    throw artifactErrors.INVALID_ARGUMENT({ field: 'stepId', rule: 'needs planId (the plan the step belongs to)' });
}

/** The fetch record's columns (all null for a document that was not fetched). */
function fetchColumns(fetched: artifactV1.DocumentFetch | undefined) {
  return {
    fetch_url: fetched?.requestedUrl ?? null,
    fetch_final_url: fetched?.finalUrl ?? null,
    fetched_at: fetched?.fetchedAt ?? null,
    fetch_status: fetched?.httpStatus ?? null,
    fetch_content_type: fetched?.contentType ?? null,
    fetch_etag: fetched?.etag ?? null,
    fetch_last_modified: fetched?.lastModified ?? null,
  };
}

/**
 * A fetched document's source is the URL it was imported from (what a citation should name);
 * otherwise the canonical URL the document states, if any.
 */
export function documentWrite(
  req: DocumentRequest,
  converted: ConvertedDocument,
  original: OriginalFile,
  fetched?: artifactV1.DocumentFetch,
): DocumentWrite {
  const sourceUrl = fetched?.requestedUrl ?? converted.canonicalUrl;
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
    ...(sourceUrl ? { sourceUrl } : {}),
    ...(fetched ? { fetched: { ...fetched, fetchedAt: fetched.fetchedAt?.toISOString() } } : {}),
  };
  const content = JSON.stringify({ document: about });
  return {
    row: {
      plan_id: req.planId ?? null,
      step_id: req.stepId ?? null,
      artifact_type: DOCUMENT_ARTIFACT_TYPE,
      source: 'document',
      title,
      content,
      content_text: converted.text,
      confidence: null,
      tags: [],
      instruction_flags: flagsColumn(documentScanInput(converted.text, title, converted.format, original.bytes)),
      idempotency_key: null,
      request_hash: null,
      // The original file counts too: it is stored beside the artifact and deleted with it.
      stored_bytes: artifactBytes({ title, content, content_text: converted.text }, original.bytes.length),
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
      source_url: sourceUrl ?? null,
      warnings: converted.warnings,
      original: original.bytes,
      ...fetchColumns(fetched),
      tables: JSON.stringify(storedTables(converted.tables)),
    },
    figures: figureRows(converted.figures),
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
