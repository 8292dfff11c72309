import type { artifactV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import { conversionRefusal } from '../core/document-refusals.js';
import { checkImportRequest } from '../core/document-write.js';
import type { HandlerDeps } from './deps.js';
import { storeDocument } from './store-document.js';

/**
 * ImportDocument: a file sent whole, stored as a source document (handlers/store-document.ts);
 * a file that cannot be converted is refused with its DOCUMENT_* code and nothing is stored.
 */
export async function importDocument(
  deps: HandlerDeps,
  req: artifactV1.ImportDocumentRequest,
  ctx: CallContext,
): Promise<artifactV1.ImportDocumentResponse> {
  checkImportRequest(req);
  return storeDocument(deps, ctx, {
    bytes: Buffer.from(req.data),
    fileName: req.fileName,
    ...(req.mediaType ? { mediaType: req.mediaType } : {}),
    request: req,
    resolvePlan: true,
    refuse: (error) => conversionRefusal(error, req.fileName),
  });
}
