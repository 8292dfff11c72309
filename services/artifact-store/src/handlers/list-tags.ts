import type { artifactV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import { tagCounts } from '../store/artifacts.js';
import { inTenant } from '../store/tenant.js';
import type { ArtifactServiceDeps } from './deps.js';

/** More distinct tags than a model can use in one answer; the most used ones come first. */
const MAX_TAGS = 1000;

/** ListTags: every tag of the org's artifacts with its count (row-level security scopes the count). */
export async function listTags(
  deps: ArtifactServiceDeps,
  _req: artifactV1.ListTagsRequest,
  ctx: CallContext,
): Promise<artifactV1.ListTagsResponse> {
  return { tags: await inTenant(deps.db, ctx, (trx) => tagCounts(trx, MAX_TAGS)) };
}
