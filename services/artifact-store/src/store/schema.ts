import type { ColumnType, Generated, Insertable } from 'kysely';

type Json = ColumnType<unknown, string, string>;

/** An instruction flag as stored (the scanner's own shape, @quarry/instruction-flags). */
export interface StoredFlag {
  kind: string;
  start?: number;
  end?: number;
  excerpt: string;
}
/** bigint: pg returns a string (it may exceed 2^53); written as a number. */
type BigintColumn = ColumnType<string | null, number | null, number | null>;

/** A document's table as stored: its unit, its order there, caption, rows of cell text, PDF box. */
export interface StoredTable {
  unit: number;
  index: number;
  caption?: string;
  rows: string[][];
  /** [left, bottom, right, top] */
  box?: number[];
}
/** bigint, never null: pg returns a string; written as a number. */
type StoredBytes = ColumnType<string, number, number>;

/** A row's measured bytes: the column defaults to 0. */
type MeasuredBytes = ColumnType<string, number | undefined, number>;

/** The `artifact` schema as kysely sees it (see migrations/artifact). */
export interface ArtifactDatabase {
  'artifact.research_artifacts': {
    id: Generated<string>;
    org_id: string;
    plan_id: string | null;
    step_id: string | null;
    artifact_type: string;
    source: 'client' | 'subagent' | 'document';
    title: string;
    content: Json;
    content_text: string | null;
    confidence: number | null;
    tags: string[];
    session_id: string | null;
    idempotency_key: string | null;
    request_hash: string | null;
    /** What the row counts against its org's storage quota (core/storage-quota.ts); 0 when not given. */
    stored_bytes: MeasuredBytes;
    /** What the instruction scanner found; null: not scanned yet (core/instruction-flags.ts). */
    instruction_flags: ColumnType<StoredFlag[] | null, string | null, string | null>;
    created_at: Generated<Date>;
  };
  'artifact.documents': {
    artifact_id: string;
    org_id: string;
    sha256: string;
    /** bigint: pg returns a string. */
    size_bytes: ColumnType<string, number, number>;
    file_name: string;
    media_type: string;
    format: string;
    unit_kind: string;
    /** [[number, start, end], …] */
    units: ColumnType<[number, number, number][], string, string>;
    metadata: ColumnType<Record<string, string>, string, string>;
    author: string | null;
    published_at: string | null;
    source_url: string | null;
    warnings: string[];
    original: Buffer;
    /** Where import_url fetched it (all null for a document that was not fetched). */
    fetch_url: string | null;
    fetch_final_url: string | null;
    fetched_at: Date | null;
    fetch_status: number | null;
    fetch_content_type: string | null;
    fetch_etag: string | null;
    fetch_last_modified: string | null;
    /** [{unit, index, caption?, rows, box?}, …] */
    tables: ColumnType<StoredTable[], string | undefined, string>;
    created_at: Generated<Date>;
  };
  'artifact.document_figures': {
    artifact_id: string;
    org_id: string;
    number: number;
    unit: number;
    index_in_unit: number;
    caption: string | null;
    media_type: string;
    width: number;
    height: number;
    /** [left, bottom, right, top] */
    box: number[] | null;
    sha256: string;
    size_bytes: number;
    bytes: Buffer;
  };
  'artifact.research_outputs': {
    id: Generated<string>;
    org_id: string;
    plan_id: string;
    media_type: string;
    title: string;
    content_text: string | null;
    content_bytes: Buffer | null;
    content_size: number;
    content_summary: string | null;
    formatting_notes_used: string | null;
    session_id: string | null;
    idempotency_key: string | null;
    request_hash: string | null;
    stored_bytes: MeasuredBytes;
    created_at: Generated<Date>;
  };
  'artifact.extraction_results': {
    id: Generated<string>;
    org_id: string;
    plan_id: string | null;
    step_id: string | null;
    data: Json;
    field_confidences: Json;
    fields: Json;
    overall_confidence: number;
    provider: 'anthropic' | 'openai' | 'sampling' | 'client' | 'heuristic';
    model: string;
    extraction_schema: Json;
    schema_hash: string;
    schema_version: number;
    source_artifact_id: string | null;
    source_text: string | null;
    source_url: string | null;
    source_page: number | null;
    source_section: string | null;
    input_tokens: BigintColumn;
    output_tokens: BigintColumn;
    idempotency_key: string | null;
    created_at: Generated<Date>;
  };
  /** Each org's stored totals (migrations/artifact/2026_11_28_2140_storage_quotas.ts). */
  'artifact.org_usage': {
    org_id: string;
    stored_bytes: StoredBytes;
    artifacts: StoredBytes;
  };
  /** The storage limits the operator set for an org; null: the service's default. */
  'artifact.org_quotas': {
    org_id: string;
    storage_bytes: ColumnType<string | null, number | null, number | null>;
    artifacts: ColumnType<string | null, number | null, number | null>;
    updated_at: Generated<Date>;
  };
}

/** A new row of `table` as the handlers build it: the org is added from the caller's identity when it is inserted. */
export type NewRow<T extends keyof ArtifactDatabase> = Omit<Insertable<ArtifactDatabase[T]>, 'org_id'>;

/** What an insert gives back: the new row's id and when it was stored. */
export interface Inserted {
  id: string;
  createdAt: Date;
}
