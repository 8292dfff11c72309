import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { benchCli, SIZES, type Results } from '../src/index.js';

// `npm run bench -- --graph` (ADR 0059): the entity graph rows only, against the embedded system
// at the smoke sizes.

const dir = mkdtempSync(join(tmpdir(), 'quarry-bench-graph-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the --graph phase', () => {
  it('loads an entity graph in bulk and times get_entity_graph at depth 2 through gRPC, MCP and SQL', async () => {
    const file = join(dir, 'graph.json');
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (line: string) => out.push(line), err: (line: string) => err.push(line) };
    await expect(benchCli(['--graph', '--json', file], io, SIZES.smoke)).resolves.toBe(0);

    const results = JSON.parse(readFileSync(file, 'utf8')) as Results;
    expect(Object.keys(results).sort()).toEqual(
      [
        'graph_entities',
        'graph_relations',
        'graph_load_s',
        'graph_depth2_neighbourhood_mean',
        'graph_depth2_grpc_p50_ms',
        'graph_depth2_grpc_p95_ms',
        'graph_depth2_mcp_p50_ms',
        'graph_depth2_mcp_p95_ms',
        'graph_depth2_sql_frontier_p95_ms',
        'graph_depth2_sql_cte_p95_ms',
      ].sort(),
    );
    expect(results.graph_entities!.value).toBe(SIZES.smoke.graph.entities);
    // Duplicate pairs are dropped by the unique key: nearly all of the attempted relations.
    expect(results.graph_relations!.value).toBeGreaterThan(SIZES.smoke.graph.relations * 0.95);
    expect(results.graph_depth2_neighbourhood_mean!.value).toBeGreaterThan(10);
    expect(results.graph_depth2_grpc_p95_ms!.value).toBeGreaterThan(0);
    expect(out.join('\n')).toMatch(/^graph_depth2_grpc_p95_ms .* ≤ 50 /m);
    // The walk's plan probes both relation indexes.
    expect(err.join('\n')).toMatch(/entity_relations_to_idx/);
  });
});
