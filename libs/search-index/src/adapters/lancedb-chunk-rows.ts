import { Field, Int32, List, Utf8 } from 'apache-arrow';
import { chunkDocument, chunkId } from '../core/source.js';
import type { ChunkHit, IndexedChunk, IndexedSource } from '../types.js';
import type { Row } from './lancedb-table.js';

/** The columns both LanceDB tables share; each table adds its own (`fts_text` or `vector`). */
export function baseFields(): Field[] {
  return [
    new Field('id', new Utf8(), false),
    new Field('org_id', new Utf8(), false),
    new Field('source_table', new Utf8(), false),
    new Field('source_id', new Utf8(), false),
    new Field('chunk_no', new Int32(), false),
    new Field('content_hash', new Utf8(), false),
    new Field('title', new Utf8(), false),
    new Field('plan_id', new Utf8(), true),
    new Field('artifact_type', new Utf8(), true),
    new Field('tags', new List(new Field('item', new Utf8(), true)), false),
    new Field('created_at', new Utf8(), true),
    new Field('text', new Utf8(), false),
    new Field('start_offset', new Int32(), false),
    new Field('end_offset', new Int32(), false),
    new Field('unit', new Int32(), true),
  ];
}

/** A chunk as both tables store it; each table adds its own column (`fts_text` or `vector`). */
export function baseRow(source: IndexedSource, chunk: IndexedChunk): Row {
  // Every row has every column of the table: `unit` is null where the chunk has no page.
  return { id: chunkId(source, chunk.chunkNo), unit: null, ...chunkDocument(source, chunk) };
}

/** Best first; ties keep source order then chunk order, so ranks are deterministic. */
export function byScore(hits: ChunkHit[]): ChunkHit[] {
  return hits.sort(
    (a, b) =>
      b.score - a.score || (a.sourceId < b.sourceId ? -1 : a.sourceId > b.sourceId ? 1 : 0) || a.chunkNo - b.chunkNo,
  );
}
