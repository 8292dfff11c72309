import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from '@jest/globals';
import {
  chunkText,
  createLocalEmbedder,
  openLanceBm25Index,
  openLanceVectorIndex,
  prepareSource,
  type ChunkHit,
} from '@quarry/search-index';
import { buildHybridSearch, classifyQuery, fuse, rankResults, rankSources, type QueryType } from '../src/index.js';

/**
 * Measurements quoted in docs/adr/0009-search-engines.md. Opt-in, because they take about a
 * minute: speed at 10k chunks and retrieval quality on the Cranfield collection, which is not part
 * of the repository (`QUARRY_CRANFIELD_DIR=<dir> npm run measure -w @quarry/search`).
 */
const CRANFIELD = process.env.QUARRY_CRANFIELD_DIR ?? '';
const enabled = process.env.QUARRY_SEARCH_MEASURE === '1' && CRANFIELD !== '';

const readJsonl = <T>(file: string): T[] =>
  readFileSync(join(CRANFIELD, file), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as T);
const pct = (xs: number[], p: number): number =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const ms = (x: number): string => x.toFixed(2);

(enabled ? describe : describe.skip)(
  `measurements${enabled ? '' : ' — skipped unless QUARRY_SEARCH_MEASURE=1 and QUARRY_CRANFIELD_DIR=<dir> (npm run measure)'}`,
  () => {
    const docs = enabled ? readJsonl<{ _id: string; title: string; text: string }>('corpus.jsonl') : [];
    const queries = enabled ? readJsonl<{ _id: string; text: string }>('queries.jsonl') : [];
    const embedder = createLocalEmbedder();

    it('speed at 10k chunks (local embedder 768-d, embedded LanceDB)', async () => {
      // Sources of ~8 chunks built from Cranfield abstracts (cycled with a variant suffix) until 10k chunks.
      const sources: { id: string; text: string }[] = [];
      let chunkCount = 0;
      for (let s = 0, d = 0; chunkCount < 10_000; s++) {
        const parts: string[] = [];
        let wordsInSource = 0;
        while (wordsInSource < 1800) {
          const doc = docs[d % docs.length]!;
          parts.push(`${doc.text} (variant ${Math.floor(d / docs.length)})`);
          wordsInSource += doc.text.split(' ').length;
          d++;
        }
        const text = parts.join('\n\n');
        sources.push({ id: `src-${s}`, text });
        chunkCount += chunkText(text).length;
      }
      const t0 = performance.now();
      const prepared = sources.map((s) =>
        prepareSource(
          { orgId: 'org-bench', sourceTable: 'research_artifact', sourceId: s.id, title: `Source ${s.id}` },
          s.text,
        ),
      );
      const t1 = performance.now();
      const allChunks = prepared.flatMap((p) => p.chunks);
      const vectors = await embedder.embed(allChunks.map((c) => c.text));
      const t2 = performance.now();

      const dir = mkdtempSync(join(tmpdir(), 'quarry-measure-'));
      const bm25 = await openLanceBm25Index({ dir });
      const vec = await openLanceVectorIndex({ dir, embedder: await embedder.identity() });
      // Another tenant's data in the same tables, so the org filter has work to do.
      for (let i = 0; i < 50; i++) {
        const other = prepareSource(
          { orgId: 'org-other', sourceTable: 'research_artifact', sourceId: `o-${i}`, title: 'Other' },
          docs[i]!.text,
        );
        await bm25.upsert(other);
        await vec.upsert({ ...other, chunks: other.chunks.map((c) => ({ ...c, vector: embedder.embedOne(c.text) })) });
      }
      const upsertMs: number[] = [];
      let k = 0;
      for (const p of prepared) {
        const withVectors = { ...p, chunks: p.chunks.map((c) => ({ ...c, vector: vectors[k++]! })) };
        const a = performance.now();
        await bm25.upsert(p);
        await vec.upsert(withVectors);
        upsertMs.push(performance.now() - a);
      }
      const t3 = performance.now();
      const reUpsert: number[] = [];
      for (const p of prepared.slice(0, 100)) {
        const a = performance.now();
        await bm25.upsert(p);
        reUpsert.push(performance.now() - a);
      }
      const t4 = performance.now();
      await bm25.optimize();
      await vec.optimize();
      const t5 = performance.now();

      const search = buildHybridSearch({ bm25, vectors: vec, embedder });
      const lat = { bm25: [] as number[], vector: [] as number[], embedQuery: [] as number[], hybrid: [] as number[] };
      for (const q of queries) {
        let a = performance.now();
        await bm25.search(q.text, { orgId: 'org-bench', limit: 50 });
        lat.bm25.push(performance.now() - a);
        a = performance.now();
        const qv = embedder.embedOne(q.text);
        lat.embedQuery.push(performance.now() - a);
        a = performance.now();
        await vec.search(qv, { orgId: 'org-bench', limit: 50 });
        lat.vector.push(performance.now() - a);
        a = performance.now();
        const r = await search({ orgId: 'org-bench', query: q.text, limit: 10 });
        lat.hybrid.push(performance.now() - a);
        expect(r.results.length).toBeGreaterThan(0);
      }
      await bm25.close();
      await vec.close();
      rmSync(dir, { recursive: true, force: true });

      const rows = [
        ['chunks', String(allChunks.length), `${sources.length} sources`],
        ['chunk + hash (all)', `${ms(t1 - t0)} ms`, `${ms(((t1 - t0) * 1000) / allChunks.length)} µs/chunk`],
        ['local embed (all)', `${ms(t2 - t1)} ms`, `${ms(((t2 - t1) * 1000) / allChunks.length)} µs/chunk`],
        [
          'upsert per source (bm25+vec)',
          `p50 ${ms(pct(upsertMs, 50))} ms`,
          `p95 ${ms(pct(upsertMs, 95))} ms, total ${ms(t3 - t2)} ms`,
        ],
        ['re-upsert unchanged (bm25)', `p50 ${ms(pct(reUpsert, 50))} ms`, `p95 ${ms(pct(reUpsert, 95))} ms`],
        ['optimize (fold into FTS index)', `${ms(t5 - t4)} ms`, ''],
        ...Object.entries(lat).map(([name, xs]) => [
          `search ${name}`,
          `p50 ${ms(pct(xs, 50))} ms`,
          `p95 ${ms(pct(xs, 95))} ms`,
        ]),
      ];
      console.log(`\n${rows.map((r) => r.map((c, i) => c.padEnd(i === 0 ? 32 : 18)).join(' | ')).join('\n')}`);
    }, 600_000);

    it('quality on Cranfield (1400 docs, 225 queries): nDCG@10 and Recall@100', async () => {
      const qrels = new Map<string, Map<string, number>>();
      for (const line of readFileSync(join(CRANFIELD, 'qrels.tsv'), 'utf8').trim().split('\n').slice(1)) {
        const [q, d, g] = line.split('\t');
        if (!qrels.has(q!)) qrels.set(q!, new Map());
        qrels.get(q!)!.set(d!, Number(g));
      }
      const dir = mkdtempSync(join(tmpdir(), 'quarry-measure-q-'));
      const bm25 = await openLanceBm25Index({ dir });
      const vec = await openLanceVectorIndex({ dir, embedder: await embedder.identity() });
      for (const d of docs) {
        const s = prepareSource(
          { orgId: 'cran', sourceTable: 'research_artifact', sourceId: d._id, title: d.title },
          d.text,
        );
        if (s.chunks.length === 0) continue;
        await bm25.upsert(s);
        await vec.upsert({ ...s, chunks: s.chunks.map((c) => ({ ...c, vector: embedder.embedOne(c.text) })) });
      }
      await bm25.optimize();
      const ndcg = (ranked: string[], rel: Map<string, number>): number => {
        const dcg = ranked.slice(0, 10).reduce((s, id, i) => s + (2 ** (rel.get(id) ?? 0) - 1) / Math.log2(i + 2), 0);
        const ideal = [...rel.values()]
          .sort((a, b) => b - a)
          .slice(0, 10)
          .reduce((s, g, i) => s + (2 ** g - 1) / Math.log2(i + 2), 0);
        return ideal > 0 ? dcg / ideal : 0;
      };
      const recall = (ranked: string[], rel: Map<string, number>): number =>
        ranked.slice(0, 100).filter((id) => rel.has(id)).length / rel.size;
      const modes: Record<string, (k: ChunkHit[], v: ChunkHit[], qt: QueryType) => string[]> = {
        'BM25 only': (k) => rankSources(k).map((x) => x.hit.sourceId),
        'vectors only (lexical local)': (_k, v) => rankSources(v).map((x) => x.hit.sourceId),
        'hybrid as built (BM25 first, lexical embedder)': (k, v, qt) =>
          rankResults(k, v, { mode: 'hybrid', queryType: qt, limit: 100, embedder }).map((r) => r.sourceId),
        'hybrid RRF, query-type weights': (k, v, qt) =>
          fuse(k, v, { queryType: qt, limit: 100 }).map((r) => r.sourceId),
        'hybrid RRF, equal weights': (k, v) => fuse(k, v, { queryType: 'balanced', limit: 100 }).map((r) => r.sourceId),
        'hybrid RRF, BM25 1.0 / vec 0.5': (k, v) =>
          fuse(k, v, { queryType: 'keyword', limit: 100 }).map((r) => r.sourceId),
      };
      const sums = Object.fromEntries(Object.keys(modes).map((m) => [m, { ndcg: 0, recall: 0 }]));
      const types: Record<string, number> = {};
      for (const q of queries) {
        const rel = qrels.get(q._id)!;
        const qt = classifyQuery(q.text);
        types[qt] = (types[qt] ?? 0) + 1;
        const k = await bm25.search(q.text, { orgId: 'cran', limit: 100 });
        const v = await vec.search(embedder.embedOne(q.text), { orgId: 'cran', limit: 100 });
        for (const [m, f] of Object.entries(modes)) {
          const ranked = f(k, v, qt);
          sums[m]!.ndcg += ndcg(ranked, rel);
          sums[m]!.recall += recall(ranked, rel);
        }
      }
      await bm25.close();
      await vec.close();
      rmSync(dir, { recursive: true, force: true });
      const n = queries.length;
      console.log(
        `\nquery types: ${JSON.stringify(types)}\n${Object.entries(sums)
          .map(
            ([m, s]) =>
              `${m.padEnd(32)} | nDCG@10 ${(s.ndcg / n).toFixed(4)} | Recall@100 ${(s.recall / n).toFixed(4)}`,
          )
          .join('\n')}`,
      );
      expect(sums['BM25 only']!.ndcg / n).toBeGreaterThan(0.2);
    }, 600_000);
  },
);
