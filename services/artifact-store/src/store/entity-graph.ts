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

/** The entities related to the frontier either way (of these types, when given). */
export async function neighboursOf(
  trx: Trx,
  orgId: string,
  frontier: readonly string[],
  types: readonly string[] | undefined,
): Promise<string[]> {
  const typed = types
    ? sql`and exists (select 1 from artifact.entities e where e.id = n.id and e.type = any(${types}::text[]))`
    : sql``;
  const { rows } = await sql<{ id: string }>`
    select n.id from (
      select to_id as id from artifact.entity_relations where org_id = ${orgId} and from_id = any(${frontier}::uuid[])
      union
      select from_id from artifact.entity_relations where org_id = ${orgId} and to_id = any(${frontier}::uuid[])
    ) n where true ${typed}`.execute(trx);
  return rows.map((r) => r.id);
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

export interface RelationRow {
  id: string;
  fromId: string;
  toId: string;
  type: string;
}

/** Relations with an end on the page and the other end among `all`. */
export async function relationsTouching(
  trx: Trx,
  orgId: string,
  page: readonly string[],
  all: readonly string[],
): Promise<RelationRow[]> {
  const { rows } = await sql<RelationRow>`
    select id, from_id as "fromId", to_id as "toId", type from artifact.entity_relations
     where org_id = ${orgId} and from_id = any(${page}::uuid[]) and to_id = any(${all}::uuid[])
    union
    select id, from_id, to_id, type from artifact.entity_relations
     where org_id = ${orgId} and to_id = any(${page}::uuid[]) and from_id = any(${all}::uuid[])`.execute(trx);
  return rows;
}

export interface EvidenceRow {
  relationId: string;
  artifactId: string;
  page: number | null;
  start: number | null;
  end: number | null;
  quote: string | null;
  total: number;
}

/** Each relation's first `perRelation` evidence items, oldest first, with its count. */
export async function evidenceOf(
  trx: Trx,
  orgId: string,
  relationIds: readonly string[],
  perRelation: number,
): Promise<EvidenceRow[]> {
  if (relationIds.length === 0) return [];
  const { rows } = await sql<EvidenceRow>`
    select "relationId", "artifactId", page, start, "end", quote, total::int as total from (
      select relation_id as "relationId", artifact_id as "artifactId", page, start_at as start, end_at as "end", quote,
             row_number() over (partition by relation_id order by id) as n,
             count(*) over (partition by relation_id) as total
        from artifact.relation_evidence
       where org_id = ${orgId} and relation_id = any(${relationIds}::uuid[])
    ) e where n <= ${perRelation} order by "relationId", n`.execute(trx);
  return rows;
}
