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
    created_at: Generated<Date>;
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
}

/** A new row of `table` as the handlers build it: the org is added from the caller's identity when it is inserted. */
export type NewRow<T extends keyof ArtifactDatabase> = Omit<Insertable<ArtifactDatabase[T]>, 'org_id'>;

/** What an insert gives back: the new row's id and when it was stored. */
export interface Inserted {
  id: string;
  createdAt: Date;
}
