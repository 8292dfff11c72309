import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { sql, withTenant } from '@quarry/db';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import {
  appendContentDeletedEvents,
  appendContentEvent,
  ContentDeletedV1Schema,
  eventsSchemas,
  toDeliveredEvent,
  type OutboxRecord,
} from '../src/index.js';

// content.deleted in the outbox: appended in the deleting transaction, and the outbox's own
// copies of the deleted text (content.created rows, dead letters) removed with it, for the
// deleting org only.

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase({ schemas: [...eventsSchemas] });
});
afterAll(() => database?.drop());

const orgA = randomUUID();
const orgB = randomUUID();

async function outbox(): Promise<OutboxRecord[]> {
  const { rows } = await sql<OutboxRecord>`select * from events.outbox order by id`.execute(database.admin);
  return rows;
}

async function created(orgId: string, sourceId: string): Promise<void> {
  await withTenant(database.app, { orgId }, (trx) =>
    appendContentEvent(trx, { orgId, sourceTable: 'research_artifact', sourceId, title: 'T', text: 'secret text' }),
  );
}

describe('appendContentDeletedEvents', () => {
  it('removes the created events of the sources and appends one content-free content.deleted per source', async () => {
    const gone = randomUUID();
    const kept = randomUUID();
    await created(orgA, gone);
    await created(orgA, kept);
    await created(orgB, gone); // the same id in another org is not touched
    const planId = randomUUID();
    await withTenant(database.app, { orgId: orgA }, (trx) =>
      appendContentDeletedEvents(trx, [{ orgId: orgA, sourceTable: 'research_artifact', sourceId: gone, planId }], {
        traceparent: '00-abc-def-01',
      }),
    );
    const rows = await outbox();
    const mine = rows.filter((r) => r.org_id === orgA);
    expect(mine.map((r) => [r.topic, (r.payload as { sourceId: string }).sourceId])).toEqual([
      ['content.created', kept],
      ['content.deleted', gone],
    ]);
    expect(rows.filter((r) => r.org_id === orgB).map((r) => r.topic)).toEqual(['content.created']);
    const deleted = mine[1]!;
    expect(deleted.headers).toEqual({
      'event-type': 'content.deleted',
      'schema-version': '1',
      traceparent: '00-abc-def-01',
    });
    const event = ContentDeletedV1Schema.parse(deleted.payload);
    expect(event).toMatchObject({ type: 'content.deleted', orgId: orgA, sourceId: gone, planId });
    expect(JSON.stringify(deleted.payload)).not.toContain('secret');
    // Consumers receive it as a delivered event like any other.
    expect(toDeliveredEvent(deleted)?.event).toEqual(event);
  });

  it('rolls back with the transaction, and refuses another org than the tenant', async () => {
    const source = randomUUID();
    await created(orgA, source);
    const before = await outbox();
    await expect(
      withTenant(database.app, { orgId: orgA }, async (trx) => {
        await appendContentDeletedEvents(trx, [{ orgId: orgA, sourceTable: 'research_artifact', sourceId: source }]);
        throw new Error('the delete failed');
      }),
    ).rejects.toThrow('the delete failed');
    expect(await outbox()).toEqual(before);
    await expect(
      withTenant(database.app, { orgId: orgA }, (trx) =>
        appendContentDeletedEvents(trx, [{ orgId: orgB, sourceTable: 'research_artifact', sourceId: source }]),
      ),
    ).rejects.toThrow();
    expect(await outbox()).toEqual(before);
  });
});
