import { sql } from 'kysely';
import type { EntitySpec, EvidenceSpec } from '../core/entity-input.js';
import type { StoredEntity } from '../core/entity-merge.js';
import type { Trx } from './tenant.js';

/** The org's own graph's scope (a plan's graph has the plan's id). */
const ORG_GRAPH = '00000000-0000-0000-0000-000000000000';

export function graphScope(planId: string | undefined): string {
  return planId ?? ORG_GRAPH;
}

/**
 * Serialises upserts into one graph (one org, one scope) until commit, so two calls creating the
 * same new entity cannot both create it; other graphs never wait.
 */
export async function lockGraph(trx: Trx, orgId: string, scope: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`entity-graph:${orgId}:${scope}`}, 0))`.execute(trx);
}

/** Which entities of this type own these normalised names, by name. */
export async function ownersOfNames(
  trx: Trx,
  orgId: string,
  scope: string,
  type: string,
  norms: readonly string[],
): Promise<Map<string, string>> {
  const { rows } = await sql<{ norm: string; entity_id: string }>`
    select norm, entity_id from artifact.entity_names
     where org_id = ${orgId} and scope = ${scope} and type = ${type} and norm = any(${norms}::text[])`.execute(trx);
  return new Map(rows.map((r) => [r.norm, r.entity_id]));
}

/** An entity with all its normalised names, or undefined. */
export async function readEntityForMerge(
  trx: Trx,
  orgId: string,
  id: string,
): Promise<{ entity: StoredEntity; norms: string[] } | undefined> {
  const { rows } = await sql<StoredEntity & { norms: string[] }>`
    select e.id, e.name, e.type, e.aliases, e.attributes,
           array(select n.norm from artifact.entity_names n where n.entity_id = e.id) as norms
      from artifact.entities e where e.org_id = ${orgId} and e.id = ${id} for update`.execute(trx);
  const row = rows[0];
  return row && { entity: row, norms: row.norms };
}

export async function insertEntity(
  trx: Trx,
  orgId: string,
  planId: string | undefined,
  spec: EntitySpec,
): Promise<string> {
  const { rows } = await sql<{ id: string }>`
    insert into artifact.entities (org_id, plan_id, scope, type, name, aliases, attributes)
    values (${orgId}, ${planId ?? null}, ${graphScope(planId)}, ${spec.type}, ${spec.name}, ${spec.aliases}::text[],
            ${JSON.stringify(spec.attributes)}::jsonb)
    returning id`.execute(trx);
  return rows[0]!.id;
}

export async function updateEntity(
  trx: Trx,
  id: string,
  aliases: readonly string[],
  attributes: Record<string, string>,
): Promise<void> {
  await sql`
    update artifact.entities set aliases = ${aliases}::text[], attributes = ${JSON.stringify(attributes)}::jsonb,
           updated_at = now()
     where id = ${id}`.execute(trx);
}

export async function insertNames(
  trx: Trx,
  orgId: string,
  scope: string,
  type: string,
  entityId: string,
  norms: readonly string[],
): Promise<void> {
  if (norms.length === 0) return;
  await sql`
    insert into artifact.entity_names (org_id, scope, type, norm, entity_id)
    select ${orgId}, ${scope}, ${type}, norm, ${entityId} from unnest(${norms}::text[]) as norm`.execute(trx);
}

/** Which of `ids` are entities of this graph. */
export async function entitiesInGraph(trx: Trx, orgId: string, scope: string, ids: readonly string[]) {
  if (ids.length === 0) return new Set<string>();
  const { rows } = await sql<{ id: string }>`
    select id from artifact.entities where org_id = ${orgId} and scope = ${scope} and id = any(${ids}::uuid[])`.execute(
    trx,
  );
  return new Set(rows.map((r) => r.id));
}

/** Which of `ids` are research artifacts of the org. */
export async function artifactsOfOrg(trx: Trx, orgId: string, ids: readonly string[]) {
  if (ids.length === 0) return new Set<string>();
  const { rows } = await sql<{ id: string }>`
    select id from artifact.research_artifacts where org_id = ${orgId} and id = any(${ids}::uuid[])`.execute(trx);
  return new Set(rows.map((r) => r.id));
}

/** The relation (from, to, type), created when missing. */
export async function upsertRelation(
  trx: Trx,
  orgId: string,
  from: string,
  to: string,
  type: string,
): Promise<{ id: string; created: boolean }> {
  const inserted = await sql<{ id: string }>`
    insert into artifact.entity_relations (org_id, from_id, to_id, type) values (${orgId}, ${from}, ${to}, ${type})
    on conflict (org_id, from_id, to_id, type) do nothing returning id`.execute(trx);
  if (inserted.rows[0]) return { id: inserted.rows[0].id, created: true };
  const { rows } = await sql<{ id: string }>`
    select id from artifact.entity_relations
     where org_id = ${orgId} and from_id = ${from} and to_id = ${to} and type = ${type}`.execute(trx);
  return { id: rows[0]!.id, created: false };
}

/** Adds the evidence the relation does not have yet; how many items were new. */
export async function addEvidence(
  trx: Trx,
  orgId: string,
  relationId: string,
  evidence: readonly EvidenceSpec[],
): Promise<number> {
  const { rows } = await sql<{ id: string }>`
    insert into artifact.relation_evidence (org_id, relation_id, artifact_id, page, start_at, end_at, quote)
    select ${orgId}, ${relationId}, e.artifact_id, e.page, e.start_at, e.end_at, e.quote
      from jsonb_to_recordset(${JSON.stringify(
        evidence.map((e) => ({
          artifact_id: e.artifactId,
          page: e.page,
          start_at: e.start,
          end_at: e.end,
          quote: e.quote,
        })),
      )}::jsonb) as e(artifact_id uuid, page integer, start_at integer, end_at integer, quote text)
    on conflict do nothing returning id`.execute(trx);
  return rows.length;
}

/** A plan's entity graph: its entities, and with them their names, relations and evidence. */
export async function deletePlanGraph(trx: Trx, orgId: string, planId: string): Promise<void> {
  await sql`delete from artifact.entities where org_id = ${orgId} and plan_id = ${planId}`.execute(trx);
}
