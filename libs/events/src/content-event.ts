import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import { z } from 'zod';

/** The topic (Kafka) and outbox `topic` of content events. */
export const CONTENT_CREATED_TOPIC = 'content.created';
/** The topic (Kafka) and outbox `topic` of deletions: a source and its chunks are gone. */
export const CONTENT_DELETED_TOPIC = 'content.deleted';

// guid: any 8-4-4-4-12 hex id, as @quarry/db's isUuid accepts (ids need not be RFC v4).
const uuid = z.guid();

/** One unit of a source document: its kind and number, and its span in the text (start inclusive, end exclusive). */
const DocumentUnitSchema = z
  .object({
    kind: z.enum(['page', 'slide', 'sheet', 'section']),
    number: z.number().int().min(1),
    start: z.number().int().min(0),
    end: z.number().int().min(0),
  })
  .refine((u) => u.start <= u.end, 'a unit ends before it starts');

/**
 * Version 1 of `content.created`. Consumers reject other versions, so a breaking change is a
 * new `schemaVersion` (and schema) that consumers learn before producers emit it.
 */
export const ContentCreatedV1Schema = z.object({
  schemaVersion: z.literal(1),
  eventId: uuid,
  type: z.literal('content.created'),
  orgId: uuid,
  sourceTable: z.enum(['research_artifact', 'research_output', 'extraction_result']),
  sourceId: z.string().min(1).max(200),
  planId: uuid.optional(),
  stepId: uuid.optional(),
  artifactType: z.string().min(1).max(100).optional(),
  title: z.string().max(1000),
  text: z.string(),
  tags: z.array(z.string().min(1).max(200)).max(100).optional(),
  /**
   * A source document's units (pages, slides, sheets, sections): character spans into `text`, so
   * each chunk is cut within one unit and a search hit can name its page. Optional: text without
   * pages has none.
   */
  units: z.array(DocumentUnitSchema).max(100_000).optional(),
  /** ISO 8601 with offset, e.g. 2026-11-21T23:30:00.000Z. */
  occurredAt: z.iso.datetime({ offset: true }),
  /**
   * When the source itself was stored (ISO 8601 with offset); equal to occurredAt's moment for
   * the first version, earlier for a later one (e.g. new tags). Optional: older events lack it.
   */
  createdAt: z.iso.datetime({ offset: true }).optional(),
});
export type ContentCreatedV1 = z.infer<typeof ContentCreatedV1Schema>;

/**
 * Version 1 of `content.deleted`: the source was deleted (delete_artifact, delete_research_output,
 * delete_plan). It carries ids only, never content. Consumers remove every chunk of the source
 * and keep a tombstone, so a `content.created` of the same source delivered later (a
 * redelivery, a replay) is stale and never indexes it again: source ids are never reused.
 */
export const ContentDeletedV1Schema = z.object({
  schemaVersion: z.literal(1),
  eventId: uuid,
  type: z.literal('content.deleted'),
  orgId: uuid,
  sourceTable: ContentCreatedV1Schema.shape.sourceTable,
  sourceId: z.string().min(1).max(200),
  planId: uuid.optional(),
  occurredAt: z.iso.datetime({ offset: true }),
});
export type ContentDeletedV1 = z.infer<typeof ContentDeletedV1Schema>;

/** Every content event a consumer may receive, told apart by `type`. */
export const ContentEventV1Schema = z.discriminatedUnion('type', [ContentCreatedV1Schema, ContentDeletedV1Schema]);
export type ContentEventV1 = z.infer<typeof ContentEventV1Schema>;

export type ContentDeletedInput = Omit<ContentDeletedV1, 'schemaVersion' | 'eventId' | 'type' | 'occurredAt'>;

export type ContentEventInput = Omit<ContentCreatedV1, 'schemaVersion' | 'eventId' | 'type' | 'occurredAt'> & {
  occurredAt?: Date;
};

/** The outbox headers of a content event (the Kafka adapter copies them to message headers). */
export interface EventHeaders {
  'event-type': string;
  'schema-version': string;
  traceparent?: string;
}

/**
 * Build and validate the event, then insert it into `events.outbox` in the caller's
 * transaction, so the event exists exactly when the row it describes does (rolled back with
 * it). `trx` must be inside `withTenant` for `input.orgId` (row-level security refuses other
 * orgs). Throws a ZodError for an invalid event, before any SQL runs.
 */
export async function appendContentEvent<DB>(
  trx: Transaction<DB>,
  input: ContentEventInput,
  options: { traceparent?: string } = {},
): Promise<{ eventId: string }> {
  const [appended] = await appendContentEvents(trx, [input], options);
  return appended!;
}

/**
 * appendContentEvent for many rows of one transaction (a batch store, or several calls committed
 * together): every event is built and validated first, then all are inserted by one statement.
 * `traceparent` per event when they come from different calls, else `options.traceparent`.
 * Returns their ids in input order.
 */
export async function appendContentEvents<DB>(
  trx: Transaction<DB>,
  inputs: readonly (ContentEventInput & { traceparent?: string })[],
  options: { traceparent?: string } = {},
): Promise<{ eventId: string }[]> {
  const now = new Date();
  const events = inputs.map(({ occurredAt, traceparent, ...rest }) => ({
    event: ContentCreatedV1Schema.parse({
      ...rest,
      schemaVersion: 1,
      eventId: randomUUID(),
      type: CONTENT_CREATED_TOPIC,
      occurredAt: (occurredAt ?? now).toISOString(),
    }),
    traceparent: traceparent ?? options.traceparent,
  }));
  await insertOutbox(trx, events);
  return events.map(({ event }) => ({ eventId: event.eventId }));
}

// No lock: rows carry their transaction's id (the `tx` column's default) and consumers read only
// transactions older than every one still running (events.read_outbox_committed), so writers
// never wait for each other here (docs/adr/0038-ingest-without-a-global-outbox-lock.md).
async function insertOutbox<DB>(
  trx: Transaction<DB>,
  events: readonly { event: ContentEventV1; traceparent?: string }[],
): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map(({ event, traceparent }) => {
    const headers: EventHeaders = { 'event-type': event.type, 'schema-version': String(event.schemaVersion) };
    if (traceparent) headers.traceparent = traceparent;
    return sql`(${event.eventId}, ${event.orgId}, ${event.type}, ${event.orgId}, ${JSON.stringify(event)}::jsonb, ${JSON.stringify(headers)}::jsonb)`;
  });
  await sql`
    insert into events.outbox (event_id, org_id, topic, key, payload, headers)
    values ${sql.join(rows)}
  `.execute(trx);
}

/**
 * Record that sources were deleted, in the transaction that deletes their rows: first the
 * outbox's own copies of their content (their `content.created` rows not yet read, and any dead
 * letters of them) are removed, so PostgreSQL keeps nothing of the deleted text; then one
 * `content.deleted` event per source is appended. `trx` must be inside `withTenant` for the
 * sources' org (row-level security confines both steps to it).
 */
export async function appendContentDeletedEvents<DB>(
  trx: Transaction<DB>,
  sources: readonly ContentDeletedInput[],
  options: { traceparent?: string; occurredAt?: Date } = {},
): Promise<void> {
  if (sources.length === 0) return;
  const occurredAt = (options.occurredAt ?? new Date()).toISOString();
  const events = sources.map((source) =>
    ContentDeletedV1Schema.parse({
      ...source,
      schemaVersion: 1,
      eventId: randomUUID(),
      type: CONTENT_DELETED_TOPIC,
      occurredAt,
    }),
  );
  const keys = JSON.stringify(events.map((e) => ({ sourceTable: e.sourceTable, sourceId: e.sourceId })));
  for (const table of ['events.outbox', 'events.dead_letters']) {
    await sql`
      delete from ${sql.raw(table)} t
      using jsonb_to_recordset(${keys}::jsonb) as k("sourceTable" text, "sourceId" text)
      where t.topic = ${CONTENT_CREATED_TOPIC}
        and t.payload->>'sourceTable' = k."sourceTable" and t.payload->>'sourceId' = k."sourceId"
    `.execute(trx);
  }
  await insertOutbox(
    trx,
    events.map((event) => ({ event, traceparent: options.traceparent })),
  );
}
