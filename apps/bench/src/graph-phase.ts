import { randomUUID } from 'node:crypto';
import { artifactV1 } from '@quarry/contracts';
import { createDb, sql, type AnyDb } from '@quarry/db';
import { createGrpcClient, createIdentitySigner } from '@quarry/grpc';
import { createMcpCaller } from './mcp.js';
import { interleavedLatency, percentile } from './measure.js';
import type { Phase } from './phase.js';
import type { Results } from './report.js';

const ORG_GRAPH = '00000000-0000-0000-0000-000000000000';
const DEPTH = 2;
const TYPES = ['person', 'organization', 'place', 'chemical', 'paper'];
const RELATION_TYPES = ['cites', 'employs', 'located_in', 'related_to'];

/**
 * Loads one org's graph straight into the artifact schema (bulk INSERT … SELECT on one session,
 * not tool calls): `entities` entities of five types with their names, `relations` attempted
 * relations between uniformly random pairs (duplicates dropped by the unique key, so a few
 * fewer), each with one evidence item on one artifact. Returns a sample of start ids.
 */
async function loadGraph(
  admin: AnyDb,
  orgId: string,
  artifactId: string,
  entities: number,
  relations: number,
  starts: number,
) {
  await admin.transaction().execute(async (trx) => {
    await sql`create temp table bench_entities on commit drop as
              select n, gen_random_uuid() as id from generate_series(1, ${entities}::integer) n`.execute(trx);
    await sql`create unique index on bench_entities (n)`.execute(trx);
    await sql`insert into artifact.entities (id, org_id, scope, type, name)
              select id, ${orgId}::uuid, ${ORG_GRAPH}::uuid, (${TYPES}::text[])[1 + n % 5], 'Entity ' || n
                from bench_entities`.execute(trx);
    await sql`insert into artifact.entity_names (org_id, scope, type, norm, entity_id)
              select org_id, scope, type, lower(name), id from artifact.entities where org_id = ${orgId}`.execute(trx);
    await sql`insert into artifact.entity_relations (org_id, from_id, to_id, type)
              select ${orgId}::uuid, a.id, b.id, (${RELATION_TYPES}::text[])[1 + (p.k % 4)]
                from (select k, 1 + floor(random() * ${entities})::int as a, 1 + floor(random() * ${entities})::int as b
                        from generate_series(1, ${relations}::integer) k) p
                join bench_entities a on a.n = p.a join bench_entities b on b.n = p.b
               where p.a <> p.b
              on conflict do nothing`.execute(trx);
    await sql`insert into artifact.relation_evidence (org_id, relation_id, artifact_id, page)
              select org_id, id, ${artifactId}::uuid, 1 from artifact.entity_relations where org_id = ${orgId}`.execute(
      trx,
    );
  });
  const { rows } = await sql<{ id: string; relations: number }>`
    select id, (select count(*)::int from artifact.entity_relations where org_id = ${orgId}) as relations
      from artifact.entities where org_id = ${orgId} order by random() limit ${starts}`.execute(admin);
  return { starts: rows.map((r) => r.id), relations: rows[0]?.relations ?? 0 };
}

/** The neighbourhood's ids by one recursive CTE, as the service walks it (store/entity-graph.ts). */
const cteWalk = (orgId: string, start: string) => sql`
  with recursive walk(id, d) as (
    select ${start}::uuid, 0
    union
    select n.id, w.d + 1 from walk w cross join lateral (
      select to_id as id from artifact.entity_relations where org_id = ${orgId} and from_id = w.id
      union all
      select from_id from artifact.entity_relations where org_id = ${orgId} and to_id = w.id
    ) n where w.d < ${DEPTH}
  ) select id, min(d) as d from walk group by id`;

/** The same neighbourhood by one statement per hop from the client (the alternative measured, ids only). */
async function frontierWalk(db: AnyDb, orgId: string, start: string): Promise<number> {
  const reached = new Set([start]);
  let frontier = [start];
  for (let d = 1; d <= DEPTH && frontier.length; d++) {
    const { rows } = await sql<{ id: string }>`
      select to_id as id from artifact.entity_relations where org_id = ${orgId} and from_id = any(${frontier}::uuid[])
      union
      select from_id from artifact.entity_relations where org_id = ${orgId} and to_id = any(${frontier}::uuid[])`.execute(
      db,
    );
    frontier = rows.map((r) => r.id).filter((id) => !reached.has(id));
    for (const id of frontier) reached.add(id);
  }
  return reached.size;
}

const p = (samples: number[], q: number) => ({ value: percentile(samples, q), unit: 'ms' });

/**
 * The entity graph (ADR 0059): a graph of `sizes.graph.entities` entities and
 * `sizes.graph.relations` relations in PostgreSQL, and get_entity_graph at depth 2 from random
 * entities, timed through the artifact store's gRPC boundary and through MCP (gateway, tool
 * call), beside the two ways of walking it in SQL alone: the recursive CTE the service runs and
 * one statement per hop. Prints the CTE's plan.
 */
export const graphPhase: Phase = {
  name: 'graph',
  async run({ system, sizes, progress }) {
    const { entities, relations, queries } = sizes.graph;
    const member = await system.createMember('graph');
    const artifactId = randomUUID();
    await system.registerArtifacts([{ orgId: member.orgId, id: artifactId, title: 'Graph evidence' }]);
    // The bulk load is one transaction of a minute or more on a small machine: no statement timeout.
    const admin = createDb<unknown>({
      connectionString: system.adminUrl,
      applicationName: 'quarry-bench-graph',
      max: 1,
      statementTimeoutMs: 0,
    });
    const signer = createIdentitySigner({ key: system.gatewaySettings.identityKey, issuer: 'quarry-bench' });
    const client = createGrpcClient(artifactV1.ArtifactServiceClient, system.services.artifactStore.address, {
      signer,
    });
    const mcp = createMcpCaller(system.quarryUrl, member.token);
    try {
      progress(`loading ${entities} entities and ${relations} relations (bulk insert)`);
      const began = performance.now();
      const loaded = await loadGraph(admin, member.orgId, artifactId, entities, relations, queries);
      const loadS = (performance.now() - began) / 1000;
      await system.settle();
      const identity = () => ({
        kind: 'user' as const,
        orgId: member.orgId,
        userId: member.userId,
        requestId: randomUUID(),
      });
      let next = 0;
      const start = () => loaded.starts[next++ % loaded.starts.length]!;
      progress(`get_entity_graph depth ${DEPTH} from ${queries} random entities: gRPC, MCP, SQL frontier, SQL CTE`);
      const samples = await interleavedLatency(
        {
          grpc: () =>
            client.call('getEntityGraph', { entityId: start(), depth: DEPTH, types: [] }, { identity: identity() }),
          mcp: () => mcp.call('get_entity_graph', { entityId: start(), depth: DEPTH }),
          frontier: () => frontierWalk(admin, member.orgId, start()),
          cte: () => cteWalk(member.orgId, start()).execute(admin),
        },
        { count: queries, maxMs: 120_000 },
        progress,
      );
      const { rows: plan } = await sql<{
        'QUERY PLAN': string;
      }>`explain ${cteWalk(member.orgId, loaded.starts[0]!)}`.execute(admin);
      progress(`the walk's plan (recursive CTE):\n${plan.map((r) => r['QUERY PLAN']).join('\n')}`);
      const neighbourhoods = await Promise.all(
        loaded.starts.slice(0, 50).map((s) => frontierWalk(admin, member.orgId, s)),
      );
      const results: Results = {
        graph_entities: { value: entities, unit: 'entities' },
        graph_relations: { value: loaded.relations, unit: 'relations' },
        graph_load_s: { value: loadS, unit: 's' },
        graph_depth2_neighbourhood_mean: {
          value: neighbourhoods.reduce((a, b) => a + b, 0) / neighbourhoods.length,
          unit: 'entities',
        },
        graph_depth2_grpc_p50_ms: p(samples.grpc, 50),
        graph_depth2_grpc_p95_ms: p(samples.grpc, 95),
        graph_depth2_mcp_p50_ms: p(samples.mcp, 50),
        graph_depth2_mcp_p95_ms: p(samples.mcp, 95),
        graph_depth2_sql_frontier_p95_ms: p(samples.frontier, 95),
        graph_depth2_sql_cte_p95_ms: p(samples.cte, 95),
      };
      return results;
    } finally {
      mcp.close();
      client.close();
      await admin.destroy();
    }
  },
};
