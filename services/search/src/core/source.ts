import { createHash } from 'node:crypto';
import type { Chunk, EmbeddedSource, EmbedderIdentity, IndexedChunk, IndexedSource, SourceKey, SourceMeta, UpsertReport } from '../types.js';
import { EmbedderMismatchError } from '../types.js';
import { chunkText, type ChunkOptions } from './chunker.js';

/**
 * Chunk a source's text and hash every chunk together with the metadata stored beside it, so a
 * changed title, plan or tag set also counts as a change and is re-written.
 */
export function prepareSource(meta: SourceMeta, text: string, options?: Partial<ChunkOptions>): IndexedSource {
  const tags = [...new Set(meta.tags ?? [])].sort();
  const normalized: SourceMeta = { ...meta, tags };
  const chunks = chunkText(text, options).map((c) => ({ ...c, contentHash: chunkHash(normalized, c) }));
  return { ...normalized, chunks };
}

export function chunkHash(meta: SourceMeta, chunk: Chunk): string {
  const parts = [meta.title, meta.planId ?? '', meta.artifactType ?? '', (meta.tags ?? []).join('\u0000'), chunk.start, chunk.end, chunk.text];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** Stable id of one chunk inside an engine (tenant first, so ids never collide across orgs). */
/**
 * The fields every engine stores beside a chunk (snake_case, as documents, payloads and rows
 * carry them): what filters, upsert planning and snippets read back.
 */
export function chunkDocument(source: IndexedSource | EmbeddedSource, chunk: IndexedChunk) {
  return {
    org_id: source.orgId,
    source_table: source.sourceTable,
    source_id: source.sourceId,
    chunk_no: chunk.chunkNo,
    content_hash: chunk.contentHash,
    plan_id: source.planId ?? null,
    artifact_type: source.artifactType ?? null,
    tags: source.tags ?? [],
    title: source.title,
    text: chunk.text,
    start_offset: chunk.start,
    end_offset: chunk.end,
  };
}

export function chunkId(key: SourceKey, chunkNo: number): string {
  return `${key.orgId}/${key.sourceTable}/${key.sourceId}/${chunkNo}`;
}

export interface UpsertPlan<C extends IndexedChunk> {
  /** Chunks to write: new ones and ones whose hash changed. */
  write: C[];
  /** chunkNos stored but no longer present in the source. */
  remove: number[];
  report: UpsertReport;
}

/** Compare what an index holds for a source with the new chunks: the whole idempotency rule. */
export function planUpsert<C extends IndexedChunk>(stored: ReadonlyMap<number, string>, incoming: readonly C[]): UpsertPlan<C> {
  const report: UpsertReport = { inserted: 0, updated: 0, deleted: 0, unchanged: 0 };
  const write: C[] = [];
  const keep = new Set<number>();
  for (const chunk of incoming) {
    keep.add(chunk.chunkNo);
    const hash = stored.get(chunk.chunkNo);
    if (hash === chunk.contentHash) report.unchanged++;
    else {
      write.push(chunk);
      if (hash === undefined) report.inserted++;
      else report.updated++;
    }
  }
  const remove = [...stored.keys()].filter((no) => !keep.has(no)).sort((a, b) => a - b);
  report.deleted = remove.length;
  return { write, remove, report };
}

/** Every vector written must have the dimension of the embedder that built the index. */
export function checkVectors(source: EmbeddedSource, embedder: EmbedderIdentity): void {
  for (const c of source.chunks) {
    if (c.vector.length !== embedder.dimension) throw new EmbedderMismatchError(embedder, { id: 'incoming vector', dimension: c.vector.length });
  }
}
