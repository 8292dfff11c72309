import { createHash } from 'node:crypto';
import type {
  Chunk,
  TextUnit,
  ChunkHit,
  ChunkVectors,
  EmbeddedSource,
  EmbedderIdentity,
  IndexedChunk,
  IndexedSource,
  SourceKey,
  SourceMeta,
  UpsertReport,
} from '../types.js';
import { EmbedderMismatchError } from '../types.js';
import { chunkText, type ChunkOptions } from './chunker.js';

/**
 * Chunk a source's text and hash every chunk together with the metadata stored beside it, so a
 * changed title, plan or tag set also counts as a change and is re-written. A source document's
 * text is chunked unit by unit (`units`: its pages, slides or sheets), so no chunk spans two pages
 * and each names the one it is on.
 */
export function prepareSource(
  meta: SourceMeta,
  text: string,
  options?: Partial<ChunkOptions>,
  units?: readonly TextUnit[],
): IndexedSource {
  const tags = [...new Set(meta.tags ?? [])].sort();
  const { createdAt, ...rest } = meta;
  const at = createdAt === undefined ? undefined : utcInstant(createdAt);
  const normalized: SourceMeta = { ...rest, tags, ...(at ? { createdAt: at } : {}) };
  const chunks = chunksOf(text, options, units).map((c) => ({ ...c, contentHash: chunkHash(normalized, c) }));
  return { ...normalized, chunks };
}

/** The text's chunks: of the whole text, or of each unit in turn (numbered on across units). */
function chunksOf(text: string, options: Partial<ChunkOptions> | undefined, units?: readonly TextUnit[]): Chunk[] {
  if (!units?.length) return chunkText(text, options);
  const chunks: Chunk[] = [];
  for (const unit of units) {
    const start = Math.max(0, Math.min(unit.start, text.length));
    const end = Math.max(start, Math.min(unit.end, text.length));
    for (const c of chunkText(text.slice(start, end), options))
      chunks.push({ ...c, chunkNo: chunks.length, start: c.start + start, end: c.end + start, unit: unit.number });
  }
  return chunks;
}

/**
 * An instant in the one form every engine stores and a date range compares (UTC, milliseconds,
 * `Z`): events may carry an offset, and LanceDB compares the stored strings as strings. Text that
 * is no date (the event schema lets none through) is dropped rather than failing the whole source:
 * it then behaves like a source indexed before createdAt was recorded.
 */
function utcInstant(iso: string): string | undefined {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
}

function chunkHash(meta: SourceMeta, chunk: Chunk): string {
  const parts = [
    meta.title,
    meta.planId ?? '',
    meta.artifactType ?? '',
    (meta.tags ?? []).join('\u0000'),
    chunk.start,
    chunk.end,
    chunk.text,
    // Only when known, so documents indexed before sources carried it keep their hashes.
    ...(meta.createdAt ? [meta.createdAt] : []),
    ...(chunk.unit !== undefined ? [`unit ${chunk.unit}`] : []),
  ];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

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
    created_at: source.createdAt ?? null,
    title: source.title,
    text: chunk.text,
    start_offset: chunk.start,
    end_offset: chunk.end,
    // Only a source document's chunks have a page: other documents stay as they were.
    ...(chunk.unit !== undefined ? { unit: chunk.unit } : {}),
  };
}

/** The stored fields `chunkHitOf` reads: what every engine is asked to return with a hit. */
export const CHUNK_HIT_FIELDS: readonly string[] = Object.freeze([
  'source_table',
  'source_id',
  'chunk_no',
  'title',
  'text',
  'start_offset',
  'end_offset',
  'plan_id',
  'tags',
  'created_at',
  'unit',
]);

/** A stored chunk document (as chunkDocument wrote it, read back from any engine) as a search hit. */
export function chunkHitOf(doc: Readonly<Record<string, unknown>>, score: number): ChunkHit {
  return {
    sourceTable: String(doc.source_table),
    sourceId: String(doc.source_id),
    chunkNo: Number(doc.chunk_no),
    title: String(doc.title),
    text: String(doc.text),
    start: Number(doc.start_offset),
    end: Number(doc.end_offset),
    score,
    ...(typeof doc.plan_id === 'string' && doc.plan_id ? { planId: doc.plan_id } : {}),
    tags: stringsOf(doc.tags),
    ...(typeof doc.created_at === 'string' && doc.created_at ? { createdAt: doc.created_at } : {}),
    ...(typeof doc.unit === 'number' && doc.unit > 0 ? { unit: doc.unit } : {}),
  };
}

/** A stored list of strings as an array (LanceDB hands back an Arrow vector, the others JSON arrays). */
function stringsOf(value: unknown): string[] {
  if (value === null || value === undefined || typeof value === 'string') return [];
  if (typeof value === 'object' && Symbol.iterator in value) return Array.from(value as Iterable<unknown>, String);
  return [];
}

/** Stable id of one chunk inside an engine (tenant first, so ids never collide across orgs). */
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
export function planUpsert<C extends IndexedChunk>(
  stored: ReadonlyMap<number, string>,
  incoming: readonly C[],
): UpsertPlan<C> {
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

/** How batch results (`hashesMany`) are keyed: unambiguous whatever the ids contain. */
export function sourceKeyString(key: SourceKey): string {
  return JSON.stringify([key.orgId, key.sourceTable, key.sourceId]);
}

/** Keys of one org and table: the unit every batch predicate is built from, so each carries its org. */
export interface KeyGroup {
  orgId: string;
  sourceTable: string;
  sourceIds: string[];
}

/** Distinct keys grouped by (org, table), in order of first appearance. */
export function groupKeys(keys: readonly SourceKey[]): KeyGroup[] {
  const groups = new Map<string, KeyGroup>();
  const seen = new Set<string>();
  for (const key of keys) {
    const id = sourceKeyString(key);
    if (seen.has(id)) continue;
    seen.add(id);
    const groupId = JSON.stringify([key.orgId, key.sourceTable]);
    const group = groups.get(groupId) ?? { orgId: key.orgId, sourceTable: key.sourceTable, sourceIds: [] };
    group.sourceIds.push(key.sourceId);
    groups.set(groupId, group);
  }
  return [...groups.values()];
}

export interface BatchPlan<S extends IndexedSource> {
  /** Every chunk to write (new or changed), with its source, in source then chunk order. */
  writes: { source: S; chunk: IndexedChunk }[];
  /** Per source with vanished chunks: their chunkNos. */
  removes: { source: S; chunkNos: number[] }[];
  /** One per source, in the order given. */
  reports: UpsertReport[];
}

/** planUpsert for many sources against what `hashesMany` read; a source given twice is refused. */
export function planUpsertMany<S extends IndexedSource>(
  stored: ReadonlyMap<string, ReadonlyMap<number, string>>,
  sources: readonly S[],
): BatchPlan<S> {
  const plan: BatchPlan<S> = { writes: [], removes: [], reports: [] };
  const seen = new Set<string>();
  for (const source of sources) {
    const key = sourceKeyString(source);
    if (seen.has(key)) throw new Error(`upsertMany: source ${key} is given more than once`);
    seen.add(key);
    const one = planUpsert(stored.get(key) ?? new Map<number, string>(), source.chunks);
    for (const chunk of one.write) plan.writes.push({ source, chunk });
    if (one.remove.length > 0) plan.removes.push({ source, chunkNos: one.remove });
    plan.reports.push(one.report);
  }
  return plan;
}

/** Ask for the vectors of the chunks about to be written and check them (count and dimension). */
export async function requestVectors(
  vectors: ChunkVectors,
  chunks: readonly IndexedChunk[],
  embedder: EmbedderIdentity,
): Promise<number[][]> {
  if (chunks.length === 0) return [];
  const out = await vectors(chunks);
  if (out.length !== chunks.length) throw new Error(`expected ${chunks.length} vectors, got ${out.length}`);
  for (const v of out) {
    if (v.length !== embedder.dimension)
      throw new EmbedderMismatchError(embedder, { id: 'incoming vector', dimension: v.length });
  }
  return out;
}

/** The ChunkVectors of a source that already carries a vector per chunk (the per-source `upsert`). */
export function carriedVectors(source: EmbeddedSource): ChunkVectors {
  const byNo = new Map(source.chunks.map((c) => [c.chunkNo, c.vector]));
  return async (chunks) => chunks.map((c) => byNo.get(c.chunkNo)!);
}

/** Every vector written must have the dimension of the embedder that built the index. */
export function checkVectors(source: EmbeddedSource, embedder: EmbedderIdentity): void {
  for (const c of source.chunks) {
    if (c.vector.length !== embedder.dimension)
      throw new EmbedderMismatchError(embedder, { id: 'incoming vector', dimension: c.vector.length });
  }
}
