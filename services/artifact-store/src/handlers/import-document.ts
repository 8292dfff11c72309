import { createHash } from 'node:crypto';
import type { artifactV1 } from '@quarry/contracts';
import { convertDocument, type ConvertedDocument } from '@quarry/documents';
import type { CallContext } from '@quarry/grpc';
import { documentInfoOf } from '../core/document-info.js';
import { conversionRefusal } from '../core/document-refusals.js';
import { checkImportRequest, documentWrite } from '../core/document-write.js';
import { answerOf } from '../core/idempotency.js';
import { findDocumentByDigest, insertDocument, lockDigest, readDocumentInfo } from '../store/documents.js';
import { insertRow } from '../store/insert-row.js';
import { appendEvent } from '../store/outbox.js';
import { inTenant } from '../store/tenant.js';
import { type HandlerDeps, storageQuotasOf } from './deps.js';

/**
 * ImportDocument: a file stored as a source document. The same bytes already in the org answer
 * with that document (duplicate, nothing converted). Otherwise the plan reference is resolved and
 * the file converted (in a worker with memory and time limits) before any transaction opens, so a
 * file that cannot be read is refused with its DOCUMENT_* code and nothing is stored; then the
 * artifact, the document row and the content.created event are written in one transaction, under
 * a lock on the file's digest that makes a concurrent import of the same bytes wait and find it.
 */
export async function importDocument(
  deps: HandlerDeps,
  req: artifactV1.ImportDocumentRequest,
  ctx: CallContext,
): Promise<artifactV1.ImportDocumentResponse> {
  checkImportRequest(req);
  const bytes = Buffer.from(req.data);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const known = await inTenant(deps.db, ctx, (trx) => findDocumentByDigest(trx, sha256));
  if (known) return { id: known.artifact_id, title: known.title, duplicate: true, document: documentInfoOf(known) };

  if (req.planId) await deps.plans.resolve(ctx, req.planId, req.stepId);
  let converted: ConvertedDocument;
  try {
    converted = await convertDocument(
      { bytes, fileName: req.fileName, ...(req.mediaType ? { mediaType: req.mediaType } : {}) },
      { limits: deps.conversionLimits, signal: ctx.signal },
    );
  } catch (error) {
    throw conversionRefusal(error, req.fileName);
  }
  const write = documentWrite(req, converted, { bytes, sha256, fileName: req.fileName });
  const orgId = ctx.identity.orgId;
  return inTenant(deps.db, ctx, async (trx) => {
    await lockDigest(trx, orgId, sha256);
    const raced = await findDocumentByDigest(trx, sha256);
    if (raced) return { id: raced.artifact_id, title: raced.title, duplicate: true, document: documentInfoOf(raced) };
    const stored = answerOf(
      await insertRow(trx, 'artifact.research_artifacts', orgId, write.row, storageQuotasOf(deps)),
    );
    await insertDocument(trx, { ...write.document, artifact_id: stored.id, org_id: orgId });
    await appendEvent(trx, ctx, stored, write.event);
    const info = (await readDocumentInfo(trx, stored.id))!;
    return { id: stored.id, title: write.row.title, duplicate: false, document: documentInfoOf(info) };
  });
}
