import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import * as lancedb from '@lancedb/lancedb';
import {
  lanceChunksWhere,
  lanceSourcesWhere,
  lanceWhere,
  openLanceBm25Index,
  openLanceVectorIndex,
  prepareSource,
} from '../src/index.js';
import { indexContract } from './contract.js';

const dir = mkdtempSync(join(tmpdir(), 'quarry-search-lance-'));

indexContract('embedded LanceDB (always runs)', {
  // optimizeEvery: 3 exercises compaction and version cleanup in the middle of the contract.
  bm25: () => openLanceBm25Index({ dir, optimizeEvery: 3 }),
  vectors: (embedder) => openLanceVectorIndex({ dir, embedder, optimizeEvery: 3 }),
  cleanup: async () => rmSync(dir, { recursive: true, force: true }),
});

describe('LanceDB where clause', () => {
  it('puts the org first, quotes every value and ANDs the filters', () => {
    expect(lanceWhere("o'1", { sourceTable: 't', artifactType: 'finding', planId: 'p', tags: ["a'b", 'c'] })).toBe(
      "org_id = 'o''1' AND source_table = 't' AND artifact_type = 'finding' AND plan_id = 'p' AND array_has_all(tags, ['a''b', 'c'])",
    );
    expect(lanceWhere('o', { tags: [] })).toBe("org_id = 'o'");
    expect(lanceWhere('o', { createdSince: '2026-01-01T00:00:00.000Z', createdUntil: "2026'" })).toBe(
      "org_id = 'o' AND created_at >= '2026-01-01T00:00:00.000Z' AND created_at <= '2026'''",
    );
  });
});

describe('LanceDB batch predicates', () => {
  it('reads many sources with one OR group per org and table, each carrying its org, behind an indexable source_id lead, every value quoted', () => {
    const keys = [
      { orgId: 'o1', sourceTable: 't', sourceId: 'a' },
      { orgId: "o'2", sourceTable: 't', sourceId: "b'c" },
      { orgId: 'o1', sourceTable: 't', sourceId: 'd' },
      { orgId: 'o1', sourceTable: 'u', sourceId: 'a' },
      { orgId: 'o1', sourceTable: 't', sourceId: 'a' },
    ];
    expect(lanceSourcesWhere(keys)).toBe(
      "source_id IN ('a', 'd', 'b''c') AND (" +
        "(org_id = 'o1' AND source_table = 't' AND source_id IN ('a', 'd')) OR " +
        "(org_id = 'o''2' AND source_table = 't' AND source_id IN ('b''c')) OR " +
        "(org_id = 'o1' AND source_table = 'u' AND source_id IN ('a')))",
    );
  });

  it('deletes vanished chunks per source, each group carrying its org', () => {
    expect(
      lanceChunksWhere([
        { source: { orgId: 'o1', sourceTable: 't', sourceId: 'a' }, chunkNos: [2, 3] },
        { source: { orgId: 'o2', sourceTable: 't', sourceId: 'a' }, chunkNos: [0] },
      ]),
    ).toBe(
      "source_id IN ('a') AND (" +
        "(org_id = 'o1' AND source_table = 't' AND source_id = 'a' AND chunk_no IN (2, 3)) OR " +
        "(org_id = 'o2' AND source_table = 't' AND source_id = 'a' AND chunk_no IN (0)))",
    );
  });
});

describe('LanceDB compaction', () => {
  /** Rows of chunks_bm25 not yet folded into its full-text index, read through a connection of its own. */
  const unindexed = async (dir: string): Promise<number> => {
    const conn = await lancedb.connect(dir);
    const table = await conn.openTable('chunks_bm25');
    const name = (await table.listIndices()).find((i) => i.columns.includes('fts_text'))!.name;
    const stats = await table.indexStats(name);
    table.close();
    conn.close();
    return stats!.numUnindexedRows;
  };

  it.each([
    [0, 6],
    [5, 0],
  ])(
    'with optimizeEveryRows %i, a batch of 6 new rows leaves %i rows outside the FTS index',
    async (optimizeEveryRows, expected) => {
      const where = mkdtempSync(join(tmpdir(), 'quarry-search-compact-'));
      try {
        const index = await openLanceBm25Index({ dir: where, optimizeEvery: 0, optimizeEveryRows });
        const sources = Array.from({ length: 6 }, (_, i) =>
          prepareSource({ orgId: 'o', sourceTable: 't', sourceId: `s${i}`, title: 'T' }, `Short text ${i}.`),
        );
        await index.upsertMany(sources);
        await index.close();
        expect(await unindexed(where)).toBe(expected);
      } finally {
        rmSync(where, { recursive: true, force: true });
      }
    },
  );
});

describe('LanceDB tables made before documents carried created_at', () => {
  it('gain the column on open; old rows read without it, new versions with it', async () => {
    const where = mkdtempSync(join(tmpdir(), 'quarry-search-created-'));
    try {
      const index = await openLanceBm25Index({ dir: where });
      const meta = { orgId: 'o', sourceTable: 'research_artifact', sourceId: 's1', title: 'Glaciers' };
      await index.upsertMany([prepareSource(meta, 'Glacier retreat in the Alps.')]);
      await index.close();
      // Make the table as an older Quarry left it: no created_at column.
      const conn = await lancedb.connect(where);
      const table = await conn.openTable('chunks_bm25');
      await table.dropColumns(['created_at']);
      table.close();
      conn.close();

      const reopened = await openLanceBm25Index({ dir: where });
      const scope = { orgId: 'o', limit: 5 };
      expect((await reopened.search('glacier', scope))[0]).not.toHaveProperty('createdAt');
      const createdAt = '2026-11-25T21:00:00.000Z';
      await reopened.upsertMany([prepareSource({ ...meta, createdAt }, 'Glacier retreat in the Alps.')]);
      expect((await reopened.search('glacier', scope))[0]).toMatchObject({ sourceId: 's1', createdAt, tags: [] });
      await reopened.close();
    } finally {
      rmSync(where, { recursive: true, force: true });
    }
  });
});

describe('LanceDB chunks of a source document', () => {
  it('keep the page each lies on, and tables made before pages gain the column on open', async () => {
    const where = mkdtempSync(join(tmpdir(), 'quarry-search-unit-'));
    const pages = ['Tin was shipped from the harbour.', 'Copper came by rail instead.'];
    const text = pages.join('\n\n');
    const units = [
      { number: 1, start: 0, end: pages[0]!.length },
      { number: 2, start: pages[0]!.length + 2, end: text.length },
    ];
    const meta = { orgId: 'o', sourceTable: 'research_artifact', sourceId: 'doc', title: 'Freight' };
    try {
      const index = await openLanceBm25Index({ dir: where });
      await index.upsertMany([prepareSource({ ...meta, sourceId: 'plain' }, 'Copper without pages.')]);
      await index.close();
      // Make the table as an older Quarry left it: no unit column.
      const conn = await lancedb.connect(where);
      const table = await conn.openTable('chunks_bm25');
      await table.dropColumns(['unit']);
      table.close();
      conn.close();

      const reopened = await openLanceBm25Index({ dir: where });
      await reopened.upsertMany([prepareSource(meta, text, undefined, units)]);
      const hits = await reopened.search('copper', { orgId: 'o', limit: 5 });
      expect(hits.find((h) => h.sourceId === 'doc')).toMatchObject({ unit: 2, text: pages[1], start: units[1]!.start });
      expect(hits.find((h) => h.sourceId === 'plain')).not.toHaveProperty('unit');
      await reopened.close();
    } finally {
      rmSync(where, { recursive: true, force: true });
    }
  });
});
