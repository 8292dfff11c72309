import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createLocalEmbedder,
  EmbedderMismatchError,
  planUpsert,
  prepareSource,
  sourceKeyString,
  type Bm25Index,
  type IndexedChunk,
  type EmbeddedSource,
  type EmbedderIdentity,
  type IndexedSource,
  type SourceKey,
  type SourceMeta,
  type UpsertReport,
  type VectorIndex,
} from '../src/index.js';
import { dateRangeCases } from './date-range-contract.js';

/** What an engine must provide to run the shared contract. */
export interface ContractEngine {
  bm25(): Promise<Bm25Index>;
  vectors(embedder: EmbedderIdentity): Promise<VectorIndex>;
  /** Drop everything the suite created. */
  cleanup?(): Promise<void>;
}

const embedder = createLocalEmbedder({ dimension: 128 });
const ORG_A = 'org-a-0001';
const ORG_B = 'org-b-0002';

const para = (topic: string, n: number): string =>
  Array.from({ length: n }, (_, i) => `Paragraph ${i} explains ${topic} in detail, step ${i}.`).join(' ');

async function embedded(source: IndexedSource): Promise<EmbeddedSource> {
  const vectors = await embedder.embed(source.chunks.map((c) => c.text));
  return { ...source, chunks: source.chunks.map((c, i) => ({ ...c, vector: vectors[i]! })) };
}

/**
 * The behaviour every BM25 / vector adapter must show, whatever the engine: tenant isolation
 * inside the engine, idempotent re-upsert, replacement of changed text, filters, deletes, and
 * the batch forms (hashesMany, upsertMany) doing the same for many sources of several orgs.
 */
export function indexContract(name: string, engine: ContractEngine): void {
  describe(`index contract: ${name}`, () => {
    let bm25: Bm25Index;
    let vectors: VectorIndex;
    const put = async (meta: SourceMeta, text: string): Promise<void> => {
      const source = prepareSource(meta, text);
      await bm25.upsert(source);
      await vectors.upsert(await embedded(source));
    };
    const vsearch = async (q: string, orgId: string, filters = {}, limit = 10) =>
      vectors.search(embedder.embedOne(q), { orgId, filters, limit });

    beforeAll(async () => {
      bm25 = await engine.bm25();
      vectors = await engine.vectors(await embedder.identity());
      // Org B gets MANY strong matches for "glacier"; org A has one weak one.
      for (let i = 0; i < 12; i++) {
        await put(
          {
            orgId: ORG_B,
            sourceTable: 'research_artifact',
            sourceId: `b-${i}`,
            title: 'Glacier glacier',
            tags: ['secret'],
          },
          `Glacier glacier glacier melt ${i}. Glacier retreat.`,
        );
      }
      await put(
        {
          orgId: ORG_A,
          sourceTable: 'research_artifact',
          sourceId: 'a-glacier',
          title: 'Notes',
          artifactType: 'finding',
          planId: 'plan-1',
          tags: ['ice', 'climate'],
        },
        'One remark on a glacier among many other things like rivers and lakes.',
      );
      await put(
        {
          orgId: ORG_A,
          sourceTable: 'research_output',
          sourceId: 'a-output',
          title: 'Report',
          planId: 'plan-2',
          tags: ['climate'],
        },
        'The final report covers river deltas and glacier lakes.',
      );
    }, 120_000);

    afterAll(async () => {
      await bm25?.close();
      await vectors?.close();
      await engine.cleanup?.();
    });

    it('finds a tenant’s content through both legs with offsets into the source text', async () => {
      const [k] = await bm25.search('remark glacier', { orgId: ORG_A, limit: 5 });
      expect(k).toMatchObject({
        sourceTable: 'research_artifact',
        sourceId: 'a-glacier',
        chunkNo: 0,
        title: 'Notes',
        start: 0,
      });
      expect(k!.text).toContain('remark on a glacier');
      expect(k!.end).toBe(k!.text.length);
      const [v] = await vsearch('one remark on a glacier', ORG_A);
      expect(v!.sourceId).toBe('a-glacier');
      expect(v!.score).toBeGreaterThan(0.3);
    });

    it('ranks hits best first in both legs', async () => {
      const meta = { orgId: ORG_A, sourceTable: 'research_artifact', sourceId: 'a-ranked', title: 'Ranked' };
      await put(meta, `${para('weather', 60)} The kame terrace and kame delta formed here. ${para('weather', 60)}`);
      for (const hits of [
        await bm25.search('kame terrace delta', { orgId: ORG_A, limit: 50 }),
        await vsearch('kame terrace delta', ORG_A, {}, 50),
      ]) {
        expect(hits.length).toBeGreaterThan(1);
        expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
        expect(hits[0]!.text).toContain('kame terrace');
      }
      await bm25.deleteSource(meta);
      await vectors.deleteSource(meta);
    });

    it('never returns another org’s content, even when it ranks higher and the limit is small', async () => {
      for (const limit of [1, 2, 50]) {
        const k = await bm25.search('glacier', { orgId: ORG_A, limit });
        expect(k.length).toBe(Math.min(limit, 2));
        expect(k.every((h) => h.sourceId.startsWith('a-'))).toBe(true);
        const v = await vsearch('glacier glacier melt', ORG_A, {}, limit);
        expect(v.length).toBe(Math.min(limit, 2));
        expect(v.every((h) => h.sourceId.startsWith('a-'))).toBe(true);
      }
      expect(await bm25.search('glacier', { orgId: 'org-nobody', limit: 10 })).toEqual([]);
      expect(await vsearch('glacier', 'org-nobody')).toEqual([]);
    });

    it('applies sourceTable, artifactType, planId and tags (all listed) filters inside the engine', async () => {
      const ids = async (filters: object): Promise<string[]> => {
        const k = (await bm25.search('glacier', { orgId: ORG_A, filters, limit: 10 })).map((h) => h.sourceId).sort();
        const v = (await vsearch('glacier', ORG_A, filters)).map((h) => h.sourceId).sort();
        expect(v).toEqual(k);
        return k;
      };
      expect(await ids({ sourceTable: 'research_output' })).toEqual(['a-output']);
      expect(await ids({ artifactType: 'finding' })).toEqual(['a-glacier']);
      expect(await ids({ planId: 'plan-2' })).toEqual(['a-output']);
      expect(await ids({ tags: ['climate'] })).toEqual(['a-glacier', 'a-output']);
      expect(await ids({ tags: ['climate', 'ice'] })).toEqual(['a-glacier']);
      expect(await ids({ tags: ['secret'] })).toEqual([]);
      expect(await ids({ planId: 'plan-1', sourceTable: 'research_output' })).toEqual([]);
    });

    it('re-upserting the same content changes nothing', async () => {
      const meta = { orgId: ORG_A, sourceTable: 'research_artifact', sourceId: 'a-long', title: 'Long' };
      const source = prepareSource(meta, para('moraine formation', 120));
      expect(source.chunks.length).toBeGreaterThan(2);
      const first = await bm25.upsert(source);
      expect(first).toEqual({ inserted: source.chunks.length, updated: 0, deleted: 0, unchanged: 0 });
      const v1 = await vectors.upsert(await embedded(source));
      expect(v1.inserted).toBe(source.chunks.length);
      const before = await bm25.hashes(meta);
      const hitsBefore = await bm25.search('moraine', { orgId: ORG_A, limit: 20 });
      for (let i = 0; i < 2; i++) {
        expect(await bm25.upsert(source)).toEqual({
          inserted: 0,
          updated: 0,
          deleted: 0,
          unchanged: source.chunks.length,
        });
        expect(await vectors.upsert(await embedded(source))).toEqual({
          inserted: 0,
          updated: 0,
          deleted: 0,
          unchanged: source.chunks.length,
        });
      }
      expect(await bm25.hashes(meta)).toEqual(before);
      expect((await vectors.hashes(meta)).size).toBe(source.chunks.length);
      const hitsAfter = await bm25.search('moraine', { orgId: ORG_A, limit: 20 });
      expect(hitsAfter.map((h) => [h.sourceId, h.chunkNo]).sort()).toEqual(
        hitsBefore.map((h) => [h.sourceId, h.chunkNo]).sort(),
      );
      expect(hitsAfter).toHaveLength(source.chunks.length);
    });

    it('changed text replaces the old chunks (fewer chunks: the extra ones are deleted)', async () => {
      const meta = { orgId: ORG_A, sourceTable: 'research_artifact', sourceId: 'a-changing', title: 'Changing' };
      const long = prepareSource(meta, para('drumlin fields', 120));
      await bm25.upsert(long);
      await vectors.upsert(await embedded(long));
      const short = prepareSource(meta, 'Now this source only talks about esker ridges.');
      const report = await bm25.upsert(short);
      expect(report).toEqual({ inserted: 0, updated: 1, deleted: long.chunks.length - 1, unchanged: 0 });
      expect(await vectors.upsert(await embedded(short))).toEqual(report);
      expect(await bm25.search('drumlin', { orgId: ORG_A, limit: 10 })).toEqual([]);
      expect((await bm25.search('esker', { orgId: ORG_A, limit: 10 })).map((h) => h.sourceId)).toEqual(['a-changing']);
      const v = await vsearch('esker ridges', ORG_A, {}, 50);
      expect(v.filter((h) => h.sourceId === 'a-changing').map((h) => h.chunkNo)).toEqual([0]);
      expect([...(await vectors.hashes(meta)).keys()]).toEqual([0]);
    });

    it('deletes a source in one org only', async () => {
      const a = { orgId: ORG_A, sourceTable: 'research_artifact', sourceId: 'shared-id', title: 'X' };
      const b = { ...a, orgId: ORG_B };
      await put(a, 'Cirque lakes of org A.');
      await put(b, 'Cirque lakes of org B.');
      expect(await bm25.deleteSource(a)).toBe(1);
      expect(await vectors.deleteSource(a)).toBe(1);
      expect(await bm25.search('cirque', { orgId: ORG_A, limit: 10 })).toEqual([]);
      expect(await vsearch('cirque lakes', ORG_A)).not.toContainEqual(
        expect.objectContaining({ sourceId: 'shared-id' }),
      );
      expect((await bm25.search('cirque', { orgId: ORG_B, limit: 10 })).map((h) => h.sourceId)).toEqual(['shared-id']);
      expect((await vsearch('cirque lakes', ORG_B)).map((h) => h.sourceId)).toContain('shared-id');
    });

    it('refuses vectors of another embedder or dimension', async () => {
      const source = prepareSource(
        { orgId: ORG_A, sourceTable: 'research_artifact', sourceId: 'a-dim', title: 'D' },
        'short',
      );
      await expect(
        vectors.upsert({ ...source, chunks: source.chunks.map((c) => ({ ...c, vector: [1, 0, 0] })) }),
      ).rejects.toThrow(EmbedderMismatchError);
      await expect(vectors.search([1, 0, 0], { orgId: ORG_A, limit: 1 })).rejects.toThrow(EmbedderMismatchError);
      await expect(engine.vectors({ id: 'http:other-model', dimension: 128 })).rejects.toThrow(EmbedderMismatchError);
      await expect(engine.vectors({ id: (await embedder.identity()).id, dimension: 64 })).rejects.toThrow(
        EmbedderMismatchError,
      );
    });

    dateRangeCases(() => ({ bm25, vectors }), 128);

    describe('batches', () => {
      const meta = (orgId: string, sourceId: string, title: string): SourceMeta => ({
        orgId,
        sourceTable: 'research_artifact',
        sourceId,
        title,
      });
      const expectedHashes = (source: IndexedSource) => new Map(source.chunks.map((c) => [c.chunkNo, c.contentHash]));
      /** A ChunkVectors that embeds for real and remembers every call. */
      const recording = () => {
        const calls: (readonly IndexedChunk[])[] = [];
        const vectorsFor = async (chunks: readonly IndexedChunk[]) => {
          calls.push(chunks);
          return embedder.embed(chunks.map((c) => c.text));
        };
        return { calls, vectorsFor };
      };
      const removeAll = async (keys: readonly SourceKey[]) => {
        for (const key of keys) {
          await bm25.deleteSource(key);
          await vectors.deleteSource(key);
        }
      };

      it('reads the hashes of many sources of two orgs at once, an empty map for unknown ones', async () => {
        // The same source id in both orgs (different texts), and an id that needs quoting.
        const a = prepareSource(meta(ORG_A, 'h-shared', 'Shared'), para('ablation zones', 80));
        const quoted = prepareSource(meta(ORG_A, 'h-o\'quote "x"', 'Quoted'), 'Firn and névé.');
        const b = prepareSource(meta(ORG_B, 'h-shared', 'Shared'), 'Org B says one thing about ablation.');
        for (const s of [a, quoted, b]) {
          await bm25.upsert(s);
          await vectors.upsert(await embedded(s));
        }
        const unknown = { orgId: ORG_A, sourceTable: 'research_artifact', sourceId: 'h-unknown' };
        const otherTable = { ...a, sourceTable: 'research_output' }; // same org and id, another table: nothing stored
        const keys = [a, quoted, b, unknown, otherTable, a];
        for (const index of [bm25, vectors]) {
          const many = await index.hashesMany(keys);
          expect(many).toEqual(
            new Map([
              [sourceKeyString(a), await index.hashes(a)],
              [sourceKeyString(quoted), await index.hashes(quoted)],
              [sourceKeyString(b), await index.hashes(b)],
              [sourceKeyString(unknown), new Map()],
              [sourceKeyString(otherTable), new Map()],
            ]),
          );
          expect(many.get(sourceKeyString(a))).toEqual(expectedHashes(a));
          expect(many.get(sourceKeyString(quoted))).toEqual(expectedHashes(quoted));
          expect(many.get(sourceKeyString(a))!.size).toBeGreaterThan(2);
          expect(many.get(sourceKeyString(b))!.size).toBe(1);
          expect(many.get(sourceKeyString(b))!.get(0)).not.toBe(many.get(sourceKeyString(a))!.get(0));
          expect(await index.hashesMany([])).toEqual(new Map());
        }
        await removeAll([a, quoted, b]);
      });

      it('reads back the text and vector of every chunk of many sources, per org, nothing for unknown ones', async () => {
        const a = prepareSource(meta(ORG_A, 'v-shared', 'Shared'), para('moraines', 80));
        const b = prepareSource(meta(ORG_B, 'v-shared', 'Shared'), 'Org B writes about moraines too.');
        const ea = await embedded(a);
        const eb = await embedded(b);
        await vectors.upsert(ea);
        await vectors.upsert(eb);
        const unknown = { orgId: ORG_A, sourceTable: 'research_artifact', sourceId: 'v-unknown' };
        const stored = await vectors.storedVectors([a, b, unknown]);
        expect([...stored.keys()]).toEqual([sourceKeyString(a), sourceKeyString(b), sourceKeyString(unknown)]);
        expect(stored.get(sourceKeyString(unknown))).toEqual(new Map());
        for (const source of [ea, eb]) {
          const chunks = stored.get(sourceKeyString(source))!;
          expect(chunks.size).toBe(source.chunks.length);
          for (const c of source.chunks) {
            expect(chunks.get(c.chunkNo)!.text).toBe(c.text);
            // Engines store float32: the same vector up to that precision.
            const back = chunks.get(c.chunkNo)!.vector;
            expect(back).toHaveLength(c.vector.length);
            back.forEach((x, i) => expect(x).toBeCloseTo(c.vector[i]!, 5));
          }
        }
        expect(await vectors.storedVectors([])).toEqual(new Map());
        await removeAll([a, b]);
      });

      it('upserts many sources of two orgs at once: new, changed, unchanged and removed chunks, each with its report', async () => {
        const grow = para('sandur plains', 60);
        const v1 = [
          prepareSource(meta(ORG_A, 'm-grow', 'Grow'), grow),
          prepareSource(meta(ORG_A, 'm-shrink', 'Shrink'), para('roche moutonnee', 120)),
          prepareSource(meta(ORG_A, 'm-same', 'Same'), 'Nothing changes in this erratic boulder note.'),
          prepareSource(meta(ORG_A, 'm-empty', 'Empty'), para('tarn basins', 40)),
          prepareSource(meta(ORG_B, 'm-grow', 'Grow'), 'Org B keeps its own sandur note.'),
        ];
        const first = recording();
        const inserted = v1.map((s): UpsertReport => ({
          inserted: s.chunks.length,
          updated: 0,
          deleted: 0,
          unchanged: 0,
        }));
        expect(await bm25.upsertMany(v1)).toEqual(inserted);
        expect(await vectors.upsertMany(v1, first.vectorsFor)).toEqual(inserted);
        expect(first.calls.map((c) => c.length)).toEqual([v1.flatMap((s) => s.chunks).length]);

        const v2 = [
          prepareSource(meta(ORG_A, 'm-new', 'New'), 'A brand new source about proglacial lakes.'),
          prepareSource(meta(ORG_A, 'm-grow', 'Grow'), `${grow} One closing remark about braided channels.`),
          prepareSource(meta(ORG_A, 'm-shrink', 'Shrink'), 'Now only a short note on striations.'),
          prepareSource(meta(ORG_A, 'm-same', 'Same'), 'Nothing changes in this erratic boulder note.'),
          prepareSource(meta(ORG_A, 'm-empty', 'Empty'), ''),
          v1[4]!,
        ];
        // What each source must report: planned from the chunks written before (pure planUpsert).
        const before = new Map(v1.map((s) => [sourceKeyString(s), expectedHashes(s)]));
        const expected = v2.map((s) => planUpsert(before.get(sourceKeyString(s)) ?? new Map(), s.chunks).report);
        const [nu, grown, shrunk, same, emptied, otherOrg] = expected;
        expect(nu).toEqual({ inserted: 1, updated: 0, deleted: 0, unchanged: 0 });
        expect(grown!.unchanged).toBeGreaterThan(0);
        expect(grown!.inserted + grown!.updated).toBeGreaterThan(0);
        expect(shrunk).toEqual({ inserted: 0, updated: 1, deleted: v1[1]!.chunks.length - 1, unchanged: 0 });
        expect(same).toEqual({ inserted: 0, updated: 0, deleted: 0, unchanged: 1 });
        expect(emptied).toEqual({ inserted: 0, updated: 0, deleted: v1[3]!.chunks.length, unchanged: 0 });
        expect(otherOrg).toEqual({ inserted: 0, updated: 0, deleted: 0, unchanged: 1 });

        const second = recording();
        expect(await bm25.upsertMany(v2)).toEqual(expected);
        expect(await vectors.upsertMany(v2, second.vectorsFor)).toEqual(expected);
        // Vectors were asked for once, for exactly the chunks written, as the sources' own objects.
        const written = expected.reduce((n, r) => n + r.inserted + r.updated, 0);
        expect(second.calls).toHaveLength(1);
        expect(second.calls[0]).toHaveLength(written);
        const v2Chunks = new Set(v2.flatMap((s) => s.chunks));
        expect(second.calls[0]!.every((c) => v2Chunks.has(c))).toBe(true);

        for (const index of [bm25, vectors]) {
          expect(await index.hashesMany(v2)).toEqual(new Map(v2.map((s) => [sourceKeyString(s), expectedHashes(s)])));
        }
        expect(await bm25.search('roche moutonnee', { orgId: ORG_A, limit: 10 })).toEqual([]);
        expect(await bm25.search('tarn basins', { orgId: ORG_A, limit: 10 })).toEqual([]);
        expect((await bm25.search('braided channels', { orgId: ORG_A, limit: 10 })).map((h) => h.sourceId)).toEqual([
          'm-grow',
        ]);
        expect((await bm25.search('sandur', { orgId: ORG_B, limit: 10 })).map((h) => [h.sourceId, h.text])).toEqual([
          ['m-grow', 'Org B keeps its own sandur note.'],
        ]);
        // The vector stored is the one supplied for that chunk.
        const [top] = await vsearch('A brand new source about proglacial lakes.', ORG_A, {}, 1);
        expect(top).toMatchObject({ sourceId: 'm-new', chunkNo: 0 });
        expect(top!.score).toBeCloseTo(1, 5);

        // The same batch again: all unchanged, nothing asked for.
        const third = recording();
        const unchanged = v2.map((s): UpsertReport => ({
          inserted: 0,
          updated: 0,
          deleted: 0,
          unchanged: s.chunks.length,
        }));
        expect(await bm25.upsertMany(v2)).toEqual(unchanged);
        expect(await vectors.upsertMany(v2, third.vectorsFor)).toEqual(unchanged);
        expect(third.calls).toEqual([]);
        expect(await bm25.upsertMany([])).toEqual([]);
        expect(await vectors.upsertMany([], third.vectorsFor)).toEqual([]);
        await removeAll([...v1, v2[0]!]);
      });

      it('refuses a source given twice, and vectors of the wrong count or dimension, writing nothing', async () => {
        const s = prepareSource(meta(ORG_A, 'm-refused', 'Refused'), 'Kettle lakes.');
        const same = prepareSource(meta(ORG_A, 'm-refused', 'Refused twice'), 'Kettle lakes again.');
        await expect(bm25.upsertMany([s, same])).rejects.toThrow(/more than once/);
        await expect(vectors.upsertMany([s, same], recording().vectorsFor)).rejects.toThrow(/more than once/);
        await expect(vectors.upsertMany([s], async () => [])).rejects.toThrow('expected 1 vectors, got 0');
        await expect(vectors.upsertMany([s], async (chunks) => chunks.map(() => [1, 0, 0]))).rejects.toThrow(
          EmbedderMismatchError,
        );
        expect(await bm25.hashes(s)).toEqual(new Map());
        expect(await vectors.hashes(s)).toEqual(new Map());
      });
    });
  });
}
