import { createHash } from 'node:crypto';
import type { artifactV1 } from '@quarry/contracts';
import { convertDocument, type ConvertedDocument } from '@quarry/documents';
import type { CallContext } from '@quarry/grpc';
import { documentInfoOf } from '../core/document-info.js';
import { documentWrite, type DocumentRequest } from '../core/document-write.js';
import { answerOf } from '../core/idempotency.js';
import { insertFigures } from '../store/document-figures.js';
import { findDocumentByDigest, insertDocument, lockDigest, readDocumentInfo } from '../store/documents.js';
import { insertRow } from '../store/insert-row.js';
import { appendEvent } from '../store/outbox.js';
import { inTenant } from '../store/tenant.js';
import { type HandlerDeps, storageQuotasOf } from './deps.js';

/** A file on its way in: its bytes, what the caller said of it, and where it was fetched, if it was. */
export interface IncomingDocument {
  bytes: Buffer;
  fileName: string;
  /** A hint only: the format is read from the bytes. */
  mediaType?: string;
  request: DocumentRequest;
  fetched?: artifactV1.DocumentFetch;
  /** Resolve the request's plan reference before converting (false: the caller already has). */
  resolvePlan: boolean;
  /** A conversion failure as the caller's error. */
  refuse: (error: unknown) => unknown;
}

export interface StoredDocument {
  id: string;
  title: string;
  duplicate: boolean;
  document: artifactV1.DocumentInfo;
}

/**
 * The one way a document is stored (import_document, the upload route through it, import_url).
 * The same bytes already in the org answer with that document (duplicate, nothing converted).
 * Otherwise the plan reference is resolved and the file converted (in a worker with memory and
 * time limits) before any transaction opens, so a file that cannot be read is refused and nothing
 * is stored; then the artifact, the document row, its figures and the content.created event are
 * written in one transaction, under a lock on the file's digest that makes a concurrent import of the same
 * bytes wait and find it.
 */
export async function storeDocument(
  deps: HandlerDeps,
  ctx: CallContext,
  incoming: IncomingDocument,
): Promise<StoredDocument> {
  const { bytes, fileName, mediaType, request } = incoming;
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const known = await inTenant(deps.db, ctx, (trx) => findDocumentByDigest(trx, sha256));
  if (known) return { id: known.artifact_id, title: known.title, duplicate: true, document: documentInfoOf(known) };

  if (incoming.resolvePlan && request.planId) await deps.plans.resolve(ctx, request.planId, request.stepId);
  let converted: ConvertedDocument;
  try {
    converted = await convertDocument(
      { bytes, fileName, ...(mediaType ? { mediaType } : {}) },
      { limits: deps.conversionLimits, signal: ctx.signal },
    );
  } catch (error) {
    throw incoming.refuse(error);
  }
  const write = documentWrite(request, converted, { bytes, sha256, fileName }, incoming.fetched);
  const orgId = ctx.identity.orgId;
  return inTenant(deps.db, ctx, async (trx) => {
    await lockDigest(trx, orgId, sha256);
    const raced = await findDocumentByDigest(trx, sha256);
    if (raced) return { id: raced.artifact_id, title: raced.title, duplicate: true, document: documentInfoOf(raced) };
    const stored = answerOf(
      await insertRow(trx, 'artifact.research_artifacts', orgId, write.row, storageQuotasOf(deps)),
    );
    await insertDocument(trx, { ...write.document, artifact_id: stored.id, org_id: orgId });
    await insertFigures(trx, stored.id, orgId, write.figures);
    await appendEvent(trx, ctx, stored, write.event);
    const info = (await readDocumentInfo(trx, stored.id))!;
    return { id: stored.id, title: write.row.title, duplicate: false, document: documentInfoOf(info) };
  });
}
