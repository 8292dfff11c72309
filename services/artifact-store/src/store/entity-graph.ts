import { sql } from 'kysely';
import type { Trx } from './tenant.js';

// get_entity_graph's reads. Each names the org as well as running as its tenant, like every
// read of this store. The neighbourhood is walked one frontier at a time (docs/adr/0059): one
// statement per hop, each an index probe per frontier entity in both directions.

/** The entity itself, when it is in this graph. */
export async function startById(trx: Trx, orgId: string, scope: string, id: string): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    select id from artifact.entities where org_id = ${orgId} and scope = ${scope} and id = ${id}`.execute(trx);
  return rows.map((r) => r.id);
}

/** Up to `limit` entities having a name or alias that starts with `pattern`'s prefix, shortest match first. */
export async function startsByPrefix(
  trx: Trx,
  orgId: string,
  scope: string,
  pattern: string,
  limit: number,
): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    select entity_id as id from artifact.entity_names
     where org_id = ${orgId} and scope = ${scope} and norm like ${pattern}
     group by entity_id order by min(length(norm)), min(norm), entity_id limit ${limit}`.execute(trx);
  return rows.map((r) => r.id);
}

/**
 * The neighbourhood of `starts` up to `depth` hops either way (only through entities of `types`,
 * when given), each entity at its least distance: one recursive statement whose every step is an
 * index probe per reached entity in each direction (measured against frontier statements from
 * the service, ADR 0059). At most `cap` entities, the nearest, ties by id, so the cut is the
 * same on every call.
 */
export async function neighbourhood(
  trx: Trx,
  orgId: string,
  starts: readonly string[],
  depth: number,
  types: readonly string[] | undefined,
  cap: number,
): Promise<Map<string, number>> {
  const typed = types
    ? sql`and exists (select 1 from artifact.entities e where e.id = n.id and e.type = any(${types}::text[]))`
    : sql``;
  const { rows } = await sql<{ id: string; distance: number }>`
    with recursive walk(id, d) as (
      select unnest(${starts}::uuid[]), 0
      union
      select n.id, w.d + 1 from walk w cross join lateral (
        select to_id as id from artifact.entity_relations where org_id = ${orgId} and from_id = w.id
        union all
        select from_id from artifact.entity_relations where org_id = ${orgId} and to_id = w.id
      ) n where w.d < ${depth} ${typed}
    )
    select id, min(d)::int as distance from walk group by id order by 2, 1 limit ${cap}`.execute(trx);
  return new Map(rows.map((r) => [r.id, r.distance]));
}

export interface EntityRow {
  id: string;
  name: string;
  type: string;
  aliases: string[];
  attributes: Record<string, string>;
}

export async function entitiesByIds(trx: Trx, orgId: string, ids: readonly string[]): Promise<EntityRow[]> {
  const { rows } = await sql<EntityRow>`
    select id, name, type, aliases, attributes from artifact.entities
     where org_id = ${orgId} and id = any(${ids}::uuid[])`.execute(trx);
  return rows;
}

export interface EvidenceRow {
  artifactId: string;
  page: number | null;
  start: number | null;
  end: number | null;
  quote: string | null;
}

export interface RelationRow {
  id: string;
  fromId: string;
  toId: string;
  type: string;
  /** Its first `perRelation` evidence items, oldest first. */
  evidence: EvidenceRow[];
  evidenceCount: number;
}

/** Relations with an end on the page and the other end among `all`, each with its evidence (one statement). */
export async function relationsTouching(
  trx: Trx,
  orgId: string,
  page: readonly string[],
  all: readonly string[],
  perRelation: number,
): Promise<RelationRow[]> {
  const { rows } = await sql<RelationRow>`
    select r.id, r.from_id as "fromId", r.to_id as "toId", r.type,
           (select count(*)::int from artifact.relation_evidence e where e.relation_id = r.id) as "evidenceCount",
           (select coalesce(json_agg(json_build_object('artifactId', x.artifact_id, 'page', x.page, 'start', x.start_at,
                                                       'end', x.end_at, 'quote', x.quote) order by x.id), '[]')
              from (select * from artifact.relation_evidence e where e.relation_id = r.id order by e.id limit ${perRelation}) x
           ) as evidence
      from (
        select id from artifact.entity_relations
         where org_id = ${orgId} and from_id = any(${page}::uuid[]) and to_id = any(${all}::uuid[])
        union
        select id from artifact.entity_relations
         where org_id = ${orgId} and to_id = any(${page}::uuid[]) and from_id = any(${all}::uuid[])
      ) t join artifact.entity_relations r on r.id = t.id
     order by r.id`.execute(trx);
  return rows;
}
