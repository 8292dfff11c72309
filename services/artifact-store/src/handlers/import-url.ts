import type { artifactV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import { fetchedConversionRefusal } from '../core/document-refusals.js';
import { checkPlanReference } from '../core/document-write.js';
import { fileNameOf, mediaTypeHint } from '../core/fetched-file.js';
import { fetchUrl } from '../web/fetch-url.js';
import type { HandlerDeps } from './deps.js';
import { storeDocument } from './store-document.js';

/**
 * ImportUrl: the artifact store fetches the URL itself, behind the SSRF guard (web/, ADR 0057),
 * and stores the bytes as import_document stores a file, with the fetch's record. The plan
 * reference is resolved first, so a call that would be refused fetches nothing; a fetch or a
 * conversion that fails stores nothing.
 */
export async function importUrl(
  deps: HandlerDeps,
  req: artifactV1.ImportUrlRequest,
  ctx: CallContext,
): Promise<artifactV1.ImportUrlResponse> {
  checkPlanReference(req);
  if (req.planId) await deps.plans.resolve(ctx, req.planId, req.stepId);
  const { bytes, fetched } = await fetchUrl(req.url, deps.urlImports, ctx.signal);
  const mediaType = mediaTypeHint(fetched.contentType);
  const stored = await storeDocument(deps, ctx, {
    bytes,
    fileName: fileNameOf(fetched.finalUrl),
    ...(mediaType ? { mediaType } : {}),
    request: req,
    fetched,
    resolvePlan: false,
    refuse: (error) => fetchedConversionRefusal(error, req.url),
  });
  return { ...stored, fetched };
}
