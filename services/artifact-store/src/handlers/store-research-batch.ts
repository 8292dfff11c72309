import type { artifactV1 } from '@quarry/contracts';
import { type CallContext, QuarryError, status } from '@quarry/grpc';
import { batchItem } from '../core/batch-items.js';
import { researchArtifact } from '../core/writes.js';
import { artifactErrors } from '../errors.js';
import { insertRows } from '../store/insert-row.js';
import { appendEvents } from '../store/outbox.js';
import { inTenant } from '../store/tenant.js';
import { type ArtifactServiceDeps, storageQuotasOf } from './deps.js';

type Result = artifactV1.StoreResearchBatchResult;

/** Items per call: one transaction stays short, and a call's JSON fits the gateway's body limit. */
const MAX_ITEMS = 100;

// What the item itself got wrong (a bad field, an unknown plan or step, an idempotency key used
// for other content): reported in its result.
// Anything else (the plan engine unavailable, a deadline) fails the call before anything is stored.
const ITEM_FAULTS: ReadonlySet<status> = new Set([
  status.INVALID_ARGUMENT,
  status.NOT_FOUND,
  status.FAILED_PRECONDITION,
  status.ALREADY_EXISTS,
]);

function refusal(error: unknown): Result {
  if (error instanceof QuarryError && ITEM_FAULTS.has(error.status))
    return { errorCode: error.code, error: error.message };
  throw error;
}

/**
 * StoreResearchBatch: each item is checked as a store_research call (its arguments, then its
 * plan and step, each distinct reference resolved once); the items that pass are stored with
 * their content.created events in ONE transaction (one insert of rows, one of events). An item
 * whose idempotency key the org already used is answered from that key's first artifact.
 */
export async function storeResearchBatch(
  deps: ArtifactServiceDeps,
  req: artifactV1.StoreResearchBatchRequest,
  ctx: CallContext,
): Promise<artifactV1.StoreResearchBatchResponse> {
  // The gateway's schema says so too; a direct gRPC caller (a service account) is held to it here.
  if (req.artifacts.length < 1 || req.artifacts.length > MAX_ITEMS)
    throw artifactErrors.INVALID_ARGUMENT({ field: 'artifacts', rule: `must hold 1 to ${MAX_ITEMS} items` });
  const results: Result[] = new Array(req.artifacts.length);
  const accepted: {
    index: number;
    request: artifactV1.StoreResearchRequest;
    write: ReturnType<typeof researchArtifact>;
  }[] = [];
  req.artifacts.forEach((item, index) => {
    try {
      const request = batchItem(item, index);
      accepted.push({ index, request, write: researchArtifact(request) });
    } catch (error) {
      results[index] = refusal(error);
    }
  });

  const references = new Map<string, { planId: string; stepId?: string }>();
  for (const { request } of accepted)
    if (request.planId) references.set(referenceKey(request), { planId: request.planId, stepId: request.stepId });
  const unresolved = new Map<string, Result>();
  await Promise.all(
    [...references].map(async ([key, { planId, stepId }]) => {
      try {
        await deps.plans.resolve(ctx, planId, stepId);
      } catch (error) {
        unresolved.set(key, refusal(error));
      }
    }),
  );
  const storable = accepted.filter(({ index, request }) => {
    const refused = request.planId ? unresolved.get(referenceKey(request)) : undefined;
    if (refused) results[index] = refused;
    return !refused;
  });

  if (storable.length > 0) {
    await inTenant(deps.db, ctx, async (trx) => {
      const written = await insertRows(
        trx,
        'artifact.research_artifacts',
        ctx.identity.orgId,
        storable.map((s) => s.write.row),
        storageQuotasOf(deps),
      );
      await appendEvents(
        trx,
        storable.flatMap((s, i) => {
          const w = written[i]!;
          return w.kind === 'stored' ? [{ ctx, source: w, event: s.write.event }] : [];
        }),
      );
      // A replayed item is answered as stored: a retried batch gets the first call's answer.
      storable.forEach((s, i) => {
        const w = written[i]!;
        results[s.index] = w.kind === 'conflict' ? refusal(artifactErrors.IDEMPOTENCY_KEY_REUSED(w)) : { id: w.id };
      });
    });
  }
  const refused = results.filter((r) => r.id === undefined).length;
  return { results, stored: results.length - refused, refused };
}

function referenceKey(request: artifactV1.StoreResearchRequest): string {
  return `${request.planId}/${request.stepId ?? ''}`;
}
