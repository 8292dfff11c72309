import { type artifactV1, parseItemReference, type SourceTableName, sourceUrl } from '@quarry/contracts';
import { cursorScope } from '@quarry/cursors';
import { isUuid } from '@quarry/db';
import type { CallContext } from '@quarry/grpc';
import { outputText } from '../core/fetched-text.js';
import { artifactText, extractionText, extractionTitle } from '../core/indexed-text.js';
import { mimeTypeOf } from '../core/media-types.js';
import type { MediaType } from '../enums.js';
import { artifactErrors } from '../errors.js';
import { pagesOf, unitsOf } from '../core/document-pages.js';
import { readArtifact } from '../store/artifacts.js';
import { readDocumentInfo } from '../store/documents.js';
import { readExtraction } from '../store/extraction-results.js';
import { readOutput } from '../store/outputs.js';
import type { StoredFlag } from '../store/schema.js';
import { inTenant, type Trx } from '../store/tenant.js';
import type { ArtifactServiceDeps } from './deps.js';
import { budgetOf, readOffset, textPage } from './text-pages.js';

interface Found {
  sourceTable: SourceTableName;
  id: string;
  title: string;
  text: string;
  /** The page of a source document read (a reference with #page=N). */
  page?: number;
  metadata: Record<string, string | null | undefined>;
  /** An artifact's instruction flags as stored (kind names, spans into its whole text). */
  instructionFlags?: StoredFlag[] | null;
}

/** A source document's text (or, with `page`, that page's), and what fetch tells of it. */
async function documentText(
  trx: Trx,
  artifactId: string,
  text: string,
  page: number | undefined,
): Promise<{ text: string; page?: number; metadata: Record<string, string> }> {
  const document = await readDocumentInfo(trx, artifactId);
  if (!document) return { text, metadata: {} };
  const metadata: Record<string, string> = {
    sha256: document.sha256,
    file_name: document.file_name,
    mime_type: document.media_type,
    page_count: String(document.units.length),
  };
  // Where import_url fetched it: what a citation of it names.
  if (document.fetch_url && document.fetched_at) {
    metadata.source_url = document.fetch_url;
    metadata.final_url = document.fetch_final_url ?? document.fetch_url;
    metadata.fetched_at = document.fetched_at.toISOString();
  }
  if (page === undefined) return { text, metadata };
  const picked = pagesOf(text, unitsOf(document.unit_kind, document.units), { from: page, to: page }, String(page));
  return { text: picked.text, page, metadata: { ...metadata, pages: picked.label } };
}

async function findAny(
  trx: Trx,
  id: string,
  only: SourceTableName | undefined,
  page: number | undefined,
): Promise<Found | undefined> {
  if (!only || only === 'research_artifact') {
    const a = await readArtifact(trx, id);
    if (a) {
      const text = artifactText(a.content_text, a.content);
      const document = a.source === 'document' ? await documentText(trx, a.id, text, page) : undefined;
      return {
        sourceTable: 'research_artifact',
        id: a.id,
        title: a.title,
        text: document?.text ?? text,
        page: document?.page,
        metadata: {
          plan_id: a.plan_id,
          step_id: a.step_id,
          created_at: a.created_at.toISOString(),
          artifact_type: a.artifact_type,
          tags: a.tags.join(','),
          ...document?.metadata,
        },
        instructionFlags: a.instruction_flags,
      };
    }
  }
  if (!only || only === 'research_output') {
    const o = await readOutput(trx, id);
    if (o)
      return {
        sourceTable: 'research_output',
        id: o.id,
        title: o.title,
        text: outputText(o),
        metadata: {
          plan_id: o.plan_id,
          created_at: o.created_at.toISOString(),
          media_type: o.media_type,
          mime_type: mimeTypeOf(o.media_type as MediaType),
        },
      };
  }
  if (!only || only === 'extraction_result') {
    const e = await readExtraction(trx, id);
    if (e)
      return {
        sourceTable: 'extraction_result',
        id: e.id,
        title: extractionTitle(e.extraction_schema, e.data, e.schema_hash),
        text: extractionText(e.data),
        metadata: {
          plan_id: e.plan_id,
          step_id: e.step_id,
          created_at: e.created_at.toISOString(),
          source_url: e.source_url,
        },
      };
  }
  return undefined;
}

/**
 * Fetch: any stored item by id, quarry:// url or permalink, in the shape deep-research connectors
 * read ({id, title, text, url, metadata}); the text within the byte budget, the next page's
 * cursor in metadata.next_cursor. A missing, malformed and another org's id are refused alike.
 * A source document's url with #page=N (as search gives it) reads that page only.
 */
export async function fetch(
  deps: ArtifactServiceDeps,
  req: artifactV1.FetchRequest,
  ctx: CallContext,
): Promise<artifactV1.FetchResponse> {
  const named = parseItemReference(req.id);
  const id = named?.id ?? req.id;
  const found = isUuid(id)
    ? await inTenant(deps.db, ctx, (trx) => findAny(trx, id, named?.sourceTable, named?.page))
    : undefined;
  if (!found) throw artifactErrors.ITEM_NOT_FOUND({ id: req.id });
  const scope = cursorScope('fetch', found.id, ...(found.page === undefined ? [] : [found.page]));
  const page = textPage(deps, scope, found.text, readOffset(deps, scope, req.cursor), budgetOf(deps, undefined));
  const metadata: Record<string, string> = { source_table: found.sourceTable };
  for (const [key, value] of Object.entries(found.metadata)) if (value) metadata[key] = value;
  metadata.total_bytes = String(page.page.totalBytes);
  metadata.offset = String(page.page.offset);
  if (page.page.nextCursor) metadata.next_cursor = page.page.nextCursor;
  const url = sourceUrl(found.sourceTable, found.id, found.page);
  // fetch keeps the connector contract's five keys: flags go in metadata, as JSON, when there are any.
  if (found.instructionFlags?.length) metadata.instruction_flags = JSON.stringify(found.instructionFlags);
  return { id: found.id, title: found.title, text: page.text, url, metadata };
}
