import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The Cranfield 1400 collection (BEIR-style files: corpus.jsonl, queries.jsonl, qrels.tsv): the
 * content pipeline's texts for every load and its relevance judgments for the quality rows.
 */
export interface Cranfield {
  /** 1400 aerodynamics abstracts; two are empty in the source and stay empty. */
  docs: { id: string; title: string; text: string }[];
  queries: { id: string; text: string }[];
  /** query id → (doc id → graded gain 1–4). */
  qrels: Map<string, Map<string, number>>;
}

/**
 * Where the collection is: `--cranfield DIR`, else `QUARRY_CRANFIELD_DIR`. It is development data
 * that is not part of the repository, so there is no default: without it the quality rows are
 * skipped and the loads use stand-in texts.
 */
export function cranfieldDir(given: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dir = given ?? env.QUARRY_CRANFIELD_DIR;
  return dir ? resolve(dir) : undefined;
}

const FILES = ['corpus.jsonl', 'queries.jsonl', 'qrels.tsv'];

/** The collection, or why it cannot be read (the quality rows are then skipped, not faked). */
export function loadCranfield(dir: string | undefined): { data: Cranfield } | { missing: string } {
  if (dir === undefined) return { missing: 'no Cranfield collection given (--cranfield DIR or QUARRY_CRANFIELD_DIR)' };
  const absent = FILES.filter((file) => !existsSync(join(dir, file)));
  if (absent.length > 0)
    return { missing: `${absent.join(', ')} not found in ${dir} (--cranfield DIR or QUARRY_CRANFIELD_DIR)` };
  const jsonl = <T>(file: string): T[] =>
    readFileSync(join(dir, file), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as T);
  const docs = jsonl<{ _id: string; title: string; text: string }>('corpus.jsonl').map((d) => ({
    id: d._id,
    title: d.title,
    text: d.text,
  }));
  const queries = jsonl<{ _id: string; text: string }>('queries.jsonl').map((q) => ({ id: q._id, text: q.text }));
  const qrels = new Map<string, Map<string, number>>();
  for (const line of readFileSync(join(dir, 'qrels.tsv'), 'utf8').trim().split('\n').slice(1)) {
    const [query, doc, gain] = line.split('\t');
    if (!qrels.has(query!)) qrels.set(query!, new Map());
    qrels.get(query!)!.set(doc!, Number(gain));
  }
  if (docs.length === 0 || queries.length === 0 || qrels.size === 0)
    return { missing: `${dir} holds an empty Cranfield collection` };
  return { data: { docs, queries, qrels } };
}

/** nDCG@10 with exponential gain (2^g − 1), the usual IR convention (and the search ADR's). */
export function ndcgAt10(ranked: readonly string[], relevant: ReadonlyMap<string, number>): number {
  const dcg = (gains: number[]) => gains.slice(0, 10).reduce((sum, g, i) => sum + (2 ** g - 1) / Math.log2(i + 2), 0);
  const ideal = dcg([...relevant.values()].sort((a, b) => b - a));
  return ideal > 0 ? dcg(ranked.slice(0, 10).map((id) => relevant.get(id) ?? 0)) / ideal : 0;
}

/** Share of the judged-relevant documents found in the first 100. */
export function recallAt100(ranked: readonly string[], relevant: ReadonlyMap<string, number>): number {
  if (relevant.size === 0) return 0;
  return ranked.slice(0, 100).filter((id) => relevant.has(id)).length / relevant.size;
}
