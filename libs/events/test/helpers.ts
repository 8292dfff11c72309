import { randomUUID } from 'node:crypto';
import { withTenant, type AnyDb } from '@quarry/db';
import { appendContentEvent, type DeliveredEvent } from '../src/index.js';

export async function waitFor(condition: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Append one event per title for `orgId`, each in its own committed transaction; returns the event ids. */
export async function appendEvents(app: AnyDb, orgId: string, titles: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const title of titles) {
    const { eventId } = await withTenant(app, { orgId }, (trx) =>
      appendContentEvent(trx, {
        orgId,
        sourceTable: 'research_artifact',
        sourceId: randomUUID(),
        title,
        text: `text of ${title}`,
      }),
    );
    ids.push(eventId);
  }
  return ids;
}

/** The title of a delivered content.created event ('' for a deletion, which has none). */
export function titleOf(delivered: DeliveredEvent): string {
  return delivered.event.type === 'content.created' ? delivered.event.title : '';
}
