import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { assertTenantSafety, sql, withTenant } from '@quarry/db';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { appendContentEvent, appendContentEvents, ContentCreatedV1Schema, eventsSchemas } from '../src/index.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase({ schemas: [...eventsSchemas] });
});
afterAll(() => database?.drop());

const orgA = randomUUID();
const orgB = randomUUID();
const input = (orgId: string, n = 1) => ({
  orgId,
  sourceTable: 'research_artifact' as const,
  sourceId: randomUUID(),
  title: `title ${n}`,
  text: `text ${n}`,
});

async function outboxRows() {
  const { rows } = await sql<{
    id: string;
    event_id: string;
    org_id: string;
    topic: string;
    key: string;
    payload: unknown;
    headers: unknown;
  }>`
    select id, event_id, org_id, topic, key, payload, headers from events.outbox order by id`.execute(database.admin);
  return rows;
}

describe('appendContentEvent', () => {
  it('inserts a valid v1 event keyed by org into the outbox, in the caller transaction', async () => {
    const { eventId } = await withTenant(database.app, { orgId: orgA }, (trx) =>
      appendContentEvent(trx, { ...input(orgA), tags: ['x'] }, { traceparent: '00-abc-def-01' }),
    );
    const row = (await outboxRows()).find((r) => r.event_id === eventId);
    expect(row).toMatchObject({ org_id: orgA, topic: 'content.created', key: orgA });
    expect(row?.headers).toEqual({
      'event-type': 'content.created',
      'schema-version': '1',
      traceparent: '00-abc-def-01',
    });
    const event = ContentCreatedV1Schema.parse(row?.payload);
    expect(event).toMatchObject({ schemaVersion: 1, eventId, type: 'content.created', orgId: orgA, tags: ['x'] });
  });

  it('leaves no event when the transaction rolls back', async () => {
    const before = (await outboxRows()).length;
    let eventId = '';
    await expect(
      withTenant(database.app, { orgId: orgA }, async (trx) => {
        eventId = (await appendContentEvent(trx, input(orgA))).eventId;
        throw new Error('the write failed after the event');
      }),
    ).rejects.toThrow('the write failed');
    expect(eventId).not.toBe('');
    const rows = await outboxRows();
    expect(rows.length).toBe(before);
    expect(rows.some((r) => r.event_id === eventId)).toBe(false);
  });

  it('appends many events with one statement, in input order, and rolls them back together', async () => {
    const inputs = [input(orgA, 1), input(orgA, 2), input(orgA, 3)];
    const appended = await withTenant(database.app, { orgId: orgA }, (trx) => appendContentEvents(trx, inputs));
    const rows = await outboxRows();
    const mine = appended.map(({ eventId }) => rows.find((r) => r.event_id === eventId));
    expect(mine.map((r) => ContentCreatedV1Schema.parse(r?.payload).sourceId)).toEqual(inputs.map((i) => i.sourceId));
    // One statement, one transaction: the same tx for all.
    const { rows: txs } = await sql<{ n: number }>`
      select count(distinct tx)::int as n from events.outbox where event_id = any(${appended.map((a) => a.eventId)})`.execute(
      database.admin,
    );
    expect(txs).toEqual([{ n: 1 }]);

    const before = (await outboxRows()).length;
    await expect(
      withTenant(database.app, { orgId: orgA }, async (trx) => {
        await appendContentEvents(trx, [input(orgA, 4), input(orgA, 5)]);
        throw new Error('the batch failed after its events');
      }),
    ).rejects.toThrow('the batch failed');
    expect((await outboxRows()).length).toBe(before);
  });

  it('refuses an event for another org than the transaction tenant', async () => {
    await expect(
      withTenant(database.app, { orgId: orgA }, (trx) => appendContentEvent(trx, input(orgB))),
    ).rejects.toThrow(/row-level security/);
  });

  it('refuses an invalid event before any SQL runs', async () => {
    await expect(
      withTenant(database.app, { orgId: orgA }, (trx) =>
        appendContentEvent(trx, { ...input(orgA), sourceTable: 'nope' as 'research_artifact' }),
      ),
    ).rejects.toThrow(/sourceTable/);
  });
});

describe('tenant safety of the events schema', () => {
  it('passes assertTenantSafety', async () => {
    await expect(
      assertTenantSafety(database.admin, { schemas: ['events'], appRole: database.appRole }),
    ).resolves.toBeUndefined();
  });

  it('the app role sees only its own org outbox rows and none outside withTenant', async () => {
    await withTenant(database.app, { orgId: orgB }, (trx) => appendContentEvent(trx, input(orgB)));
    const seenByA = await withTenant(database.app, { orgId: orgA }, (trx) =>
      sql<{ org_id: string }>`select org_id from events.outbox`.execute(trx),
    );
    expect(seenByA.rows.length).toBeGreaterThan(0);
    expect(seenByA.rows.every((r) => r.org_id === orgA)).toBe(true);
    const outside = await sql`select 1 from events.outbox`.execute(database.app);
    expect(outside.rows).toEqual([]);
  });

  it('the app role cannot call the consumer read path unless granted quarry_event_consumer', async () => {
    await sql`do $$ begin create role quarry_events_test_stranger nologin; exception when duplicate_object then null; end $$`.execute(
      database.admin,
    );
    await sql`grant usage on schema events to quarry_events_test_stranger`.execute(database.admin);
    await expect(
      database.admin.transaction().execute(async (trx) => {
        await sql`set local role quarry_events_test_stranger`.execute(trx);
        await sql`select * from events.read_outbox_committed(0::text::xid8, 0, 10, 1000000)`.execute(trx);
      }),
    ).rejects.toThrow(/permission denied/);
  });
});

describe('appendContentEvent typing', () => {
  it('accepts a transaction of any service database type', async () => {
    interface ServiceDb {
      'artifact.research_artifacts': { id: string };
    }
    const typed = database.app as unknown as import('kysely').Kysely<ServiceDb>;
    const org = randomUUID();
    const { eventId } = await withTenant(typed, { orgId: org }, (trx) => appendContentEvent(trx, input(org)));
    expect(eventId).toMatch(/^[0-9a-f-]{36}$/);
  });
});
