import type { artifactV1 } from '@quarry/contracts';
import { isUuid } from '@quarry/db';
import type { CallContext } from '@quarry/grpc';
import { type EntitySpec, type RelationEnd, upsertPlan } from '../core/entity-input.js';
import { mergeEntity } from '../core/entity-merge.js';
import { artifactErrors } from '../errors.js';
import { type EntityChange, recordEntityChanges } from '../store/entity-audit.js';
import {
  addEvidence,
  artifactsOfOrg,
  entitiesInGraph,
  graphScope,
  insertEntity,
  insertNames,
  lockGraph,
  ownersOfNames,
  readEntityForMerge,
  updateEntity,
  upsertRelation,
} from '../store/entities.js';
import { inTenant, type Trx } from '../store/tenant.js';
import type { ArtifactServiceDeps } from './deps.js';

/**
 * UpsertEntities: every argument is checked first (core/entity-input.ts), the plan resolved, and
 * then, in one transaction holding the graph's lock, each entity is found by its type and any of
 * its normalised names and created or merged, each relation's ends and evidence artifacts are
 * checked within the caller's org and graph, and the relation and its new evidence stored. Every
 * change is recorded in entity_audit in the same transaction; a repeat changes nothing and
 * records nothing.
 */
export async function upsertEntities(
  deps: ArtifactServiceDeps,
  req: artifactV1.UpsertEntitiesRequest,
  ctx: CallContext,
): Promise<artifactV1.UpsertEntitiesResponse> {
  const plan = upsertPlan(req);
  if (req.planId !== undefined) await deps.plans.resolve(ctx, req.planId);
  const orgId = ctx.identity.orgId;
  const scope = graphScope(req.planId);
  return inTenant(deps.db, ctx, async (trx) => {
    await lockGraph(trx, orgId, scope);
    const changes: EntityChange[] = [];
    const entities: artifactV1.UpsertedEntity[] = [];
    for (const spec of plan.specs) entities.push(await upsertEntity(trx, orgId, req.planId, spec, changes));

    // A malformed id is looked up as nothing, so it is refused exactly like a missing or foreign one.
    const artifactIds = [...new Set(plan.relations.flatMap((r) => r.evidence.map((e) => e.artifactId)))];
    const artifacts = await artifactsOfOrg(trx, orgId, artifactIds.filter(isUuid));
    const missingArtifact = artifactIds.find((id) => !artifacts.has(id));
    if (missingArtifact) throw artifactErrors.ARTIFACT_NOT_FOUND({ artifactId: missingArtifact });
    const byId = plan.relations
      .flatMap((r) => [r.from, r.to])
      .flatMap((end) => ('id' in end ? [end.id.toLowerCase()] : []));
    const known = await entitiesInGraph(trx, orgId, scope, [...new Set(byId)].filter(isUuid));
    const idOf = (end: RelationEnd) => {
      if ('spec' in end) return entities[end.spec]!.id;
      const id = end.id.toLowerCase();
      if (!known.has(id)) throw artifactErrors.ENTITY_NOT_FOUND({ entity: end.id });
      return id;
    };

    const relations: artifactV1.UpsertedRelation[] = [];
    for (const relation of plan.relations) {
      const [fromId, toId] = [idOf(relation.from), idOf(relation.to)];
      const { id, created } = await upsertRelation(trx, orgId, fromId, toId, relation.type);
      const evidenceAdded = await addEvidence(trx, orgId, id, relation.evidence);
      if (created)
        changes.push({ action: 'relation_created', relationId: id, details: { fromId, toId, type: relation.type } });
      if (evidenceAdded > 0)
        changes.push({ action: 'evidence_added', relationId: id, details: { count: evidenceAdded } });
      relations.push({ id, fromId, toId, type: relation.type, created, evidenceAdded });
    }
    await recordEntityChanges(trx, orgId, ctx.identity.requestId, req.planId, changes);
    return {
      entities: plan.specOf.map((i) => entities[i]!),
      relations,
      changed: changes.length > 0,
    };
  });
}

/** Creates the entity, or merges it into the one entity that has one of its names; two owners is a conflict. */
async function upsertEntity(
  trx: Trx,
  orgId: string,
  planId: string | undefined,
  spec: EntitySpec,
  changes: EntityChange[],
): Promise<artifactV1.UpsertedEntity> {
  const scope = graphScope(planId);
  const owners = await ownersOfNames(trx, orgId, scope, spec.type, spec.norms);
  const ids = [...new Set(owners.values())];
  if (ids.length > 1) throw artifactErrors.ENTITY_CONFLICT({ name: spec.name, ids: ids.join(', ') });
  const base = { name: spec.name, type: spec.type };
  if (ids.length === 0) {
    const id = await insertEntity(trx, orgId, planId, spec);
    await insertNames(trx, orgId, scope, spec.type, id, spec.norms);
    changes.push({ action: 'entity_created', entityId: id, details: { ...base, aliases: spec.aliases } });
    return { id, ...base, created: true, changed: true };
  }
  const found = await readEntityForMerge(trx, orgId, ids[0]!);
  if (!found) throw new Error('an entity name row points at no entity');
  const merge = mergeEntity(found.entity, found.norms, spec);
  if (merge.changed) {
    await updateEntity(trx, found.entity.id, merge.aliases, merge.attributes);
    await insertNames(trx, orgId, scope, spec.type, found.entity.id, merge.newNorms);
    changes.push({
      action: 'entity_changed',
      entityId: found.entity.id,
      details: { addedAliases: merge.aliases.slice(found.entity.aliases.length), attributes: merge.changedKeys },
    });
  }
  return {
    id: found.entity.id,
    name: found.entity.name,
    type: found.entity.type,
    created: false,
    changed: merge.changed,
  };
}
