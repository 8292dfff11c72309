import type { artifactV1 } from '@quarry/contracts';
import { isUuid } from '@quarry/db';
import type { CallContext } from '@quarry/grpc';
import { instructionFlagsOf } from '../core/instruction-flags.js';
import { artifactErrors } from '../errors.js';
import { existingIds } from '../store/existing-sources.js';
import { inTenant } from '../store/tenant.js';
import type { ArtifactServiceDeps } from './deps.js';

/** More ids than any search asks about (two legs of candidate chunks); keeps one call one cheap query. */
const MAX_IDS = 1000;
/** A search hit carries its source's first flags; get_artifact and fetch give them all. */
const FLAGS_PER_HIT = 3;

/**
 * ExistingSources: which of the given sources the caller's org still holds, read in one
 * transaction under its tenant (row-level security hides other orgs' rows, so a foreign id is
 * absent exactly like a deleted one). Malformed ids are absent too: nothing can be stored under them.
 * Each artifact's instruction flags come with it, so search hits carry them from the rows.
 */
export async function existingSources(
  deps: ArtifactServiceDeps,
  req: artifactV1.ExistingSourcesRequest,
  ctx: CallContext,
): Promise<artifactV1.ExistingSourcesResponse> {
  const asked = req.sources ?? { artifactIds: [], outputIds: [], extractionResultIds: [] };
  const total = asked.artifactIds.length + asked.outputIds.length + asked.extractionResultIds.length;
  if (total > MAX_IDS)
    throw artifactErrors.INVALID_ARGUMENT({ field: 'sources', rule: `may list at most ${MAX_IDS} ids` });
  const ids = {
    artifacts: asked.artifactIds.filter(isUuid),
    outputs: asked.outputIds.filter(isUuid),
    extractionResults: asked.extractionResultIds.filter(isUuid),
  };
  if (ids.artifacts.length + ids.outputs.length + ids.extractionResults.length === 0)
    return { existing: { artifactIds: [], outputIds: [], extractionResultIds: [] }, flagged: [] };
  const found = await inTenant(deps.db, ctx, (trx) => existingIds(trx, ctx.identity.orgId, ids));
  return {
    existing: { artifactIds: found.artifacts, outputIds: found.outputs, extractionResultIds: found.extractionResults },
    flagged: [...found.flags].map(([id, flags]) => ({ id, flags: instructionFlagsOf(flags, FLAGS_PER_HIT) })),
  };
}
