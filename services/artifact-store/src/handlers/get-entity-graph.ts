import type { artifactV1 } from '@quarry/contracts';
import { cursorScope } from '@quarry/cursors';
import { isUuid } from '@quarry/db';
import type { CallContext } from '@quarry/grpc';
import { ENTITY_LIMITS, kindOf } from '../core/entity-input.js';
import { normaliseName, prefixPattern } from '../core/entity-names.js';
import { MAX_NEIGHBOURHOOD, neighbourhoodPage, type Reached, relationsOfPage } from '../core/entity-neighbourhood.js';
import { artifactErrors } from '../errors.js';
import { graphScope } from '../store/entities.js';
import { entitiesByIds, neighbourhood, relationsTouching, startById, startsByPrefix } from '../store/entity-graph.js';
import { inTenant } from '../store/tenant.js';
import type { ArtifactServiceDeps } from './deps.js';

const DEFAULT_DEPTH = 1;
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;
const MAX_STARTS = 20;
const EVIDENCE_PER_RELATION = 10;

const readReached = (value: unknown): Reached | undefined => {
  const { id, distance } = (value ?? {}) as Partial<Record<keyof Reached, unknown>>;
  return typeof id === 'string' && typeof distance === 'number' ? { id, distance } : undefined;
};

/**
 * GetEntityGraph: the start (an entity by id, or up to 20 by name or alias prefix), then the
 * neighbourhood up to `depth` hops in either direction (only through entities of `types`, when
 * given) in one recursive statement, then one page of it with the relations that end on it and
 * their evidence (core/entity-neighbourhood.ts): four statements whatever the depth. A missing, malformed or another org's (or
 * another graph's) entity id is ENTITY_NOT_FOUND; a name that matches nothing is an empty graph.
 */
export async function getEntityGraph(
  deps: ArtifactServiceDeps,
  req: artifactV1.GetEntityGraphRequest,
  ctx: CallContext,
): Promise<artifactV1.GetEntityGraphResponse> {
  if ((req.entityId === undefined) === (req.name === undefined))
    throw artifactErrors.INVALID_ARGUMENT({ field: 'entityId', rule: 'or name must be given, not both' });
  const depth = req.depth ?? DEFAULT_DEPTH;
  if (depth < 1 || depth > 3) throw artifactErrors.INVALID_ARGUMENT({ field: 'depth', rule: 'must be 1 to 3' });
  const limit = Math.min(Math.max(req.limit ?? DEFAULT_LIMIT, 1), MAX_LIMIT);
  const types = req.types.length ? [...new Set(req.types.map((t, i) => kindOf(`types[${i}]`, t)))].sort() : undefined;
  const orgId = ctx.identity.orgId;
  const scope = cursorScope('get_entity_graph', orgId, [req.planId, req.entityId, req.name, types, depth]);
  const after = req.cursor === undefined ? undefined : deps.cursors.open(req.cursor, scope, readReached);
  if (req.cursor !== undefined && !after) throw artifactErrors.INVALID_CURSOR({});
  const notFound = () => artifactErrors.ENTITY_NOT_FOUND({ entity: req.entityId ?? '' });
  const empty = { startIds: [], entities: [], relations: [] };
  if (req.planId !== undefined && !isUuid(req.planId)) {
    if (req.entityId !== undefined) throw notFound();
    return empty;
  }
  const graph = graphScope(req.planId);

  return inTenant(deps.db, ctx, async (trx) => {
    let starts: string[];
    if (req.entityId !== undefined) {
      starts = isUuid(req.entityId) ? await startById(trx, orgId, graph, req.entityId.toLowerCase()) : [];
      if (starts.length === 0) throw notFound();
    } else {
      const name = normaliseName(req.name ?? '');
      if (name.length < 1 || name.length > ENTITY_LIMITS.nameChars) return empty;
      starts = await startsByPrefix(trx, orgId, graph, prefixPattern(name), MAX_STARTS);
    }
    const reached = starts.length
      ? await neighbourhood(trx, orgId, starts, depth, types, MAX_NEIGHBOURHOOD)
      : new Map();
    const { all, page, more } = neighbourhoodPage(reached, after, limit);
    const pageIds = page.map((r) => r.id);
    const rows = new Map((await entitiesByIds(trx, orgId, pageIds)).map((e) => [e.id, e]));
    const touching = await relationsTouching(
      trx,
      orgId,
      pageIds,
      all.map((r) => r.id),
      EVIDENCE_PER_RELATION,
    );
    const relations = relationsOfPage(touching, all, page);
    const last = page.at(-1);
    return {
      startIds: starts,
      entities: page.flatMap((r) => {
        const row = rows.get(r.id);
        return row ? [{ ...row, distance: r.distance }] : [];
      }),
      relations: relations.map((r) => ({
        ...r,
        evidence: r.evidence.map((e) => ({
          artifactId: e.artifactId,
          page: e.page ?? undefined,
          start: e.start ?? undefined,
          end: e.end ?? undefined,
          quote: e.quote ?? undefined,
        })),
      })),
      nextCursor: more && last ? deps.cursors.seal(scope, last) : undefined,
    };
  });
}
