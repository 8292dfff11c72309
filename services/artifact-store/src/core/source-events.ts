import { randomUUID } from 'node:crypto';
import { CONTENT_CREATED_TOPIC, ContentCreatedV1Schema, type ContentCreatedV1 } from '@quarry/events';
import { unitsOf, type StoredUnits } from './document-pages.js';
import { artifactText, extractionText, extractionTitle } from './indexed-text.js';

// A stored row's content.created event, rebuilt from the row alone, for `quarry reindex`: the
// same title, text, plan, step, type and tags the write path (or the latest retag) emitted, so
// an index rebuilt from the tables equals one built from the event log. Pure.

export interface ArtifactRow {
  id: string;
  org_id: string;
  plan_id: string | null;
  step_id: string | null;
  artifact_type: string;
  title: string;
  content: unknown;
  content_text: string | null;
  tags: string[];
  created_at: Date;
  /** A source document's units (kind and [[number, start, end], …]); null for other artifacts. */
  document_units?: { kind: string; units: StoredUnits } | null;
}

export interface OutputRow {
  id: string;
  org_id: string;
  plan_id: string;
  title: string;
  content_text: string | null;
  content_summary: string | null;
  created_at: Date;
}

export interface ExtractionRow {
  id: string;
  org_id: string;
  plan_id: string | null;
  step_id: string | null;
  data: unknown;
  extraction_schema: unknown;
  schema_hash: string;
  created_at: Date;
}

type Fields = Omit<ContentCreatedV1, 'schemaVersion' | 'eventId' | 'type' | 'occurredAt' | 'createdAt' | 'orgId'>;

/**
 * The event, or null when the row has nothing to index (blank text: the write path emitted
 * none) or would not make a valid event. Its version is the row's creation time, the oldest a
 * source can have, so any event the log still delivers for it afterwards (a retag, a deletion)
 * is newer and wins.
 */
function eventOf(row: { id: string; org_id: string; created_at: Date }, fields: Fields): ContentCreatedV1 | null {
  if (!fields.text.trim()) return null;
  const at = row.created_at.toISOString();
  const parsed = ContentCreatedV1Schema.safeParse({
    ...fields,
    schemaVersion: 1,
    eventId: randomUUID(),
    type: CONTENT_CREATED_TOPIC,
    orgId: row.org_id,
    occurredAt: at,
    createdAt: at,
  });
  return parsed.success ? parsed.data : null;
}

const opt = <T>(value: T | null): T | undefined => value ?? undefined;

/** A research artifact or subagent report: its text (else its content's text values) and its current tags. */
export function artifactSourceEvent(row: ArtifactRow): ContentCreatedV1 | null {
  return eventOf(row, {
    sourceTable: 'research_artifact',
    sourceId: row.id,
    planId: opt(row.plan_id),
    stepId: opt(row.step_id),
    artifactType: row.artifact_type,
    title: row.title,
    text: artifactText(row.content_text, row.content),
    tags: row.tags.length ? row.tags : undefined,
    ...(row.document_units ? { units: unitsOf(row.document_units.kind, row.document_units.units) } : {}),
  });
}

/** A deliverable: summary and text (a binary document has no stored text: its summary only). */
export function outputSourceEvent(row: OutputRow): ContentCreatedV1 | null {
  return eventOf(row, {
    sourceTable: 'research_output',
    sourceId: row.id,
    planId: row.plan_id,
    title: row.title,
    text: [row.content_summary, row.content_text].filter(Boolean).join('\n\n'),
  });
}

/** An extraction result: one `path: value` line per extracted value. */
export function extractionSourceEvent(row: ExtractionRow): ContentCreatedV1 | null {
  return eventOf(row, {
    sourceTable: 'extraction_result',
    sourceId: row.id,
    planId: opt(row.plan_id),
    stepId: opt(row.step_id),
    title: extractionTitle(row.extraction_schema, row.data, row.schema_hash),
    text: extractionText(row.data),
  });
}
