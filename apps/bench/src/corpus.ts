import { randomUUID } from 'node:crypto';
import {
  prepareSource,
  STOP_WORDS,
  words,
  type Bm25Index,
  type ChunkVectors,
  type Embedder,
  type IndexedSource,
  type VectorIndex,
} from '@quarry/search-index';
import type { Cranfield } from './cranfield.js';

/**
 * Texts and queries the content pipeline's benchmarks are built from, all derived from
 * Cranfield so every run loads the same words, and the in-process bulk load of a search corpus.
 */

type Doc = Cranfield['docs'][number];

/** The non-empty documents (two Cranfield abstracts are empty: nothing to index). */
export function textDocs(docs: readonly Doc[]): Doc[] {
  return docs.filter((d) => d.text.trim() !== '');
}

/**
 * The `i`-th of an endless stream of single-abstract artifacts (≈ 1 chunk each): the corpus
 * cycled, each copy marked with a word of its own (`marker`) so every artifact is a distinct,
 * findable text.
 */
export function artifactText(docs: readonly Doc[], i: number): { title: string; text: string; marker: string } {
  const doc = docs[i % docs.length]!;
  const marker = letterMarker('qbench', i);
  return { title: doc.title.trim() || `Cranfield ${doc.id}`, text: `${doc.text}\n\n${marker}`, marker };
}

/** `prefix` + `n` in letters only (a–z), so that no tokenizer splits it or drops it as a number. */
export function letterMarker(prefix: string, n: number): string {
  let out = '';
  do {
    out = String.fromCharCode(97 + (n % 26)) + out;
    n = Math.floor(n / 26);
  } while (n > 0);
  return `${prefix}${out}`;
}

/**
 * Long sources for a search corpus: consecutive abstracts joined as paragraphs, ≈ `wordsEach`
 * words per text (≈ 36 chunks at 8k words). The texts repeat when the corpus is cycled, so their
 * chunks repeat too and their vectors are embedded once (`VectorMemo`).
 */
export function digestTexts(docs: readonly Doc[], wordsEach: number): string[] {
  const texts: string[] = [];
  let parts: string[] = [];
  let count = 0;
  for (const doc of docs) {
    parts.push(doc.text);
    count += doc.text.split(/\s+/).length;
    if (count >= wordsEach) {
      texts.push(parts.join('\n\n'));
      parts = [];
      count = 0;
    }
  }
  if (parts.length > 0) texts.push(parts.join('\n\n'));
  return texts;
}

/** Chunk text → vector, so a corpus of repeated texts embeds each distinct chunk once. */
export class VectorMemo {
  private readonly memo = new Map<string, number[]>();
  constructor(private readonly embedder: Embedder) {}

  /** The vectors a vector index's upsertMany asks for. */
  readonly of: ChunkVectors = async (chunks) => {
    const missing = [...new Set(chunks.map((c) => c.text).filter((t) => !this.memo.has(t)))];
    if (missing.length > 0) {
      const vectors = await this.embedder.embed(missing);
      missing.forEach((t, i) => this.memo.set(t, vectors[i]!));
    }
    return chunks.map((c) => this.memo.get(c.text)!);
  };
}

type Indexes = { bm25: Pick<Bm25Index, 'upsertMany'>; vectors: Pick<VectorIndex, 'upsertMany'> };

/** What the indexer does with a batch of sources: one upsertMany per index, in parallel. */
export async function upsertBatch(
  indexes: Indexes,
  sources: readonly IndexedSource[],
  vectors: ChunkVectors,
): Promise<void> {
  await Promise.all([indexes.bm25.upsertMany(sources), indexes.vectors.upsertMany(sources, vectors)]);
}

/** Chunks per upsertMany of a bulk load: large writes, few LanceDB fragments, bounded memory. */
const LOAD_BATCH_CHUNKS = 2_000;

/**
 * A search corpus written straight into the indexes under one org (no events, no indexer):
 * digest texts cycled, each copy titled with its copy number. `grow(n)` adds sources until the
 * org holds at least `n` chunks; loads are cumulative (10k, then 100k on top of it). `register`
 * stores each batch's rows where search checks that a source exists (the artifact store).
 */
export function searchCorpus(
  indexes: Indexes,
  orgId: string,
  texts: readonly string[],
  vectors: VectorMemo,
  register: (artifacts: { orgId: string; id: string; title: string }[]) => Promise<void>,
) {
  let sources = 0;
  let chunks = 0;
  return {
    get sources() {
      return sources;
    },
    get chunks() {
      return chunks;
    },
    async grow(target: number, progress: (line: string) => void = () => {}): Promise<void> {
      let reported = performance.now();
      while (chunks < target) {
        const batch: IndexedSource[] = [];
        let batchChunks = 0;
        while (chunks + batchChunks < target && batchChunks < LOAD_BATCH_CHUNKS) {
          const n = sources + batch.length;
          const slot = n % texts.length;
          const title = `Cranfield digest ${slot + 1}, copy ${Math.floor(n / texts.length) + 1}`;
          const source = prepareSource(
            { orgId, sourceTable: 'research_artifact', sourceId: randomUUID(), title, artifactType: 'summary' },
            texts[slot]!,
          );
          batch.push(source);
          batchChunks += source.chunks.length;
        }
        await register(batch.map((source) => ({ orgId, id: source.sourceId, title: source.title })));
        await upsertBatch(indexes, batch, vectors.of);
        sources += batch.length;
        chunks += batchChunks;
        if (performance.now() - reported > 10_000) {
          reported = performance.now();
          progress(`${chunks}/${target} chunks (${sources} sources)`);
        }
      }
    },
  };
}

/**
 * A mix of query shapes, in turn: a whole Cranfield query (mostly 6+ words, "semantic"), its
 * first 1–2 content words ("keyword"), 3–5 ("balanced") and 6–8 ("semantic").
 */
export function mixedQueries(queries: readonly { text: string }[], count: number): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < count; i++) {
    const query = queries[Math.floor(i / 4) % queries.length]!.text;
    const content = words(query).filter((w) => !STOP_WORDS.has(w));
    const take = (n: number) => content.slice(0, Math.max(1, Math.min(n, content.length))).join(' ');
    const [shape, round] = [i % 4, Math.floor(i / 4)];
    out.push(
      shape === 0 || content.length === 0
        ? query
        : take(shape === 1 ? 1 + (round % 2) : shape === 2 ? 3 + (round % 3) : 6 + (round % 3)),
    );
  }
  return out;
}

/**
 * Stand-in texts when the Cranfield files are missing: 1400 "abstracts" of 80–250 words drawn
 * (Zipf-like, seeded, so every run is the same) from 3000 made-up words, and 225 queries taken
 * from them. Enough for the load and latency rows; quality needs the real judgments.
 */
export function syntheticCorpus(): Pick<Cranfield, 'docs' | 'queries'> {
  let seed = 0x9e3779b9;
  const random = () => {
    // mulberry32
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const syllables = [
    'ka',
    'lo',
    'mi',
    'ne',
    'ru',
    'sa',
    'ti',
    'vo',
    'pre',
    'dar',
    'gen',
    'flu',
    'tor',
    'sta',
    'wel',
    'bri',
  ];
  const vocabulary = Array.from({ length: 3000 }, (_, i) => {
    let word = '';
    for (let n = i + 1; n > 0; n = Math.floor(n / syllables.length)) word += syllables[n % syllables.length];
    return word;
  });
  const word = () => vocabulary[Math.floor(vocabulary.length * random() ** 3)]!; // small indexes are common
  const sentence = (n: number) => Array.from({ length: n }, word).join(' ');
  const docs = Array.from({ length: 1400 }, (_, i) => {
    const title = sentence(6);
    const text = Array.from({ length: 8 + Math.floor(random() * 20) }, () => `${sentence(10)} .`).join(' ');
    return { id: String(i + 1), title, text: `${title} . ${text}` };
  });
  const queries = Array.from({ length: 225 }, (_, i) => ({
    id: String(i + 1),
    text: docs[(i * 7) % docs.length]!.text.split(' ').slice(3, 13).join(' '),
  }));
  return { docs, queries };
}
