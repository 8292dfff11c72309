import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql, withTenant } from '@quarry/db';
import { insertRows } from '../src/store/insert-row.js';
import type { NewRow } from '../src/store/schema.js';
import { startTestStore, type TestStore } from './support.js';

// Two transactions racing on one idempotency key, over real PostgreSQL and in a fixed order: the
// second insert waits for the first transaction at the unique index, then stores nothing and is
// answered from the first row once it is committed, or stores its own row if the first rolled back.

let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => {
  await store?.close();
});

const row = (key: string, hash: string): NewRow<'artifact.research_artifacts'> => ({
  artifact_type: 'finding',
  source: 'client',
  title: 'Race',
  content: '{}',
  tags: [],
  idempotency_key: key,
  request_hash: hash.repeat(64),
});

/** The first transaction inserts and holds until `end` says how it ends; the second then races it. */
async function race(
  orgId: string,
  first: ReturnType<typeof row>,
  second: ReturnType<typeof row>,
  end: 'commit' | 'rollback',
) {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let firstInserted!: () => void;
  const inserted = new Promise<void>((r) => (firstInserted = r));
  const one = withTenant(store.db, { orgId }, async (trx) => {
    const [written] = await insertRows(trx, 'artifact.research_artifacts', orgId, [first]);
    firstInserted();
    await held;
    if (end === 'rollback') throw new Error('rolled back');
    return written!;
  }).catch((e: Error) => e.message);
  await inserted;
  let settled = false;
  const two = withTenant(store.db, { orgId }, (trx) =>
    insertRows(trx, 'artifact.research_artifacts', orgId, [second]),
  ).finally(() => (settled = true));
  await new Promise((r) => setTimeout(r, 200));
  const waited = !settled; // the second insert waits on the first transaction's key
  release();
  return { first: await one, second: (await two)[0]!, waited };
}

describe('two transactions with one key', () => {
  it('the second waits, stores nothing and gets the first row', async () => {
    const key = randomUUID();
    const { first, second, waited } = await race(randomUUID(), row(key, 'a'), row(key, 'a'), 'commit');
    expect(waited).toBe(true);
    expect(first).toMatchObject({ kind: 'stored' });
    expect(second).toEqual({ kind: 'replayed', id: (first as { id: string }).id, createdAt: expect.any(Date) });
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from artifact.research_artifacts where idempotency_key = ${key}`.execute(
      store.database.admin,
    );
    expect(rows[0]!.n).toBe(1);
  });

  it('the second is refused when its request differs', async () => {
    const key = randomUUID();
    const { second } = await race(randomUUID(), row(key, 'a'), row(key, 'b'), 'commit');
    expect(second).toEqual({ kind: 'conflict', key });
  });

  it('the second stores its own row when the first rolls back', async () => {
    const key = randomUUID();
    const { first, second, waited } = await race(randomUUID(), row(key, 'a'), row(key, 'b'), 'rollback');
    expect(waited).toBe(true);
    expect(first).toBe('rolled back');
    expect(second).toMatchObject({ kind: 'stored' });
  });
});
