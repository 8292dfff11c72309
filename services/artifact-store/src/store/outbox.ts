import { appendContentDeletedEvents, appendContentEvent, appendContentEvents } from '@quarry/events';
import type { CallContext } from '@quarry/grpc';
import type { Transaction } from 'kysely';
import type { ContentEvent } from '../core/writes.js';
import type { Inserted } from './schema.js';
import type { Trx } from './tenant.js';

function traceparentOf(ctx: CallContext): string | undefined {
  const value = ctx.metadata.get('traceparent')[0];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The content.created event of the row `source` (its id, and when it was stored, which the
 * indexes keep for search results), appended to the outbox in the row's own transaction, so an
 * event exists exactly when its row does. Blank text has nothing to index: no event.
 */
export async function appendEvent(trx: Trx, ctx: CallContext, source: Inserted, event: ContentEvent): Promise<void> {
  if (!event.text.trim()) return;
  // The outbox lives in the `events` schema, which this service's database type does not name.
  await appendContentEvent(
    trx as unknown as Transaction<unknown>,
    { ...event, sourceId: source.id, createdAt: source.createdAt.toISOString(), orgId: ctx.identity.orgId },
    { traceparent: traceparentOf(ctx) },
  );
}

/**
 * appendEvent for many rows of one transaction (a batch store, or calls committed together):
 * one insert for all their events, each with its own call's traceparent.
 */
export async function appendEvents(
  trx: Trx,
  writes: readonly { ctx: CallContext; source: Inserted; event: ContentEvent }[],
): Promise<void> {
  const inputs = writes
    .filter(({ event }) => event.text.trim())
    .map(({ ctx, source, event }) => ({
      ...event,
      sourceId: source.id,
      createdAt: source.createdAt.toISOString(),
      orgId: ctx.identity.orgId,
      traceparent: traceparentOf(ctx),
    }));
  await appendContentEvents(trx as unknown as Transaction<unknown>, inputs);
}

/**
 * The content.deleted events of rows deleted in this transaction (and the outbox's own copies
 * of their content removed), so the indexes forget exactly what PostgreSQL no longer holds.
 */
export async function appendDeletedEvents(
  trx: Trx,
  ctx: CallContext,
  sources: Parameters<typeof appendContentDeletedEvents>[1],
): Promise<void> {
  await appendContentDeletedEvents(trx as unknown as Transaction<unknown>, sources, {
    traceparent: traceparentOf(ctx),
  });
}
