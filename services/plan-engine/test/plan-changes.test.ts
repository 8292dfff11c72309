import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { sql } from '@quarry/db';
import { createTestDatabase, refuseConnections, type TestDatabase } from '@quarry/testing';
import { createPlanChangeListener, planSchemas, type PlanChangeListener } from '../src/index.js';
import { logger } from './grpc-support.js';

// The change feed that long-polls and the status cache stand on. What it owes them when its
// LISTEN connection goes away: wake every long-poll (it may sleep through a change it cannot
// hear), tell the cache that anything may have changed, and do both again once it hears again,
// so a long-poll that began during the outage re-reads instead of missing what happened in it.

let database: TestDatabase;
const listeners: PlanChangeListener[] = [];

async function started(): Promise<PlanChangeListener> {
  const changes = createPlanChangeListener({ connectionString: database.appUrl, logger });
  listeners.push(changes);
  await changes.start();
  return changes;
}

/** What the table triggers send at commit, sent as any replica's write would. */
const changed = (orgId: string, planId: string) =>
  sql`select pg_notify('quarry_plan_changed', ${`${orgId}:${planId}`})`.execute(database.admin);

const pending = Symbol('pending');
const settled = <T>(promise: Promise<T>) =>
  Promise.race([promise, new Promise<typeof pending>((resolve) => setTimeout(() => resolve(pending), 50))]);

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  if (!check()) throw new Error('condition not met in 10 s');
}

beforeAll(async () => {
  database = await createTestDatabase({ schemas: [...planSchemas] });
});

afterEach(async () => {
  await Promise.all(listeners.splice(0).map((changes) => changes.close()));
});

afterAll(async () => {
  await database?.drop();
});

describe('the plan change feed', () => {
  it('wakes the long-polls of the plan that changed and tells observers its key', async () => {
    const changes = await started();
    const [org, plan, other] = [randomUUID(), randomUUID(), randomUUID()];
    const seen: Array<string | undefined> = [];
    changes.observe((key) => seen.push(key));
    const mine = changes.watch(org.toUpperCase(), plan, 10_000);
    const theirs = changes.watch(org, other, 10_000);
    try {
      await changed(org, plan);
      expect(await mine.changed).toBe(true);
      expect(await settled(theirs.changed)).toBe(pending);
      expect(await changes.barrier()).toBe(true);
      expect(seen).toEqual([`${org}:${plan}`]);
    } finally {
      mine.cancel();
      theirs.cancel();
    }
  });

  it('wakes every long-poll when its connection is lost, and again when it is back', async () => {
    const changes = await started();
    const [org, plan] = [randomUUID(), randomUUID()];
    const seen: Array<string | undefined> = [];
    changes.observe((key) => seen.push(key));
    const before = changes.watch(org, plan, 30_000);
    let during: ReturnType<PlanChangeListener['watch']> | undefined;
    await refuseConnections(database, true);
    try {
      expect(await before.changed).toBe(true);
      expect(changes.isListening()).toBe(false);
      expect(await changes.barrier()).toBe(false);
      expect(seen).toEqual([undefined]);
      // A long-poll that begins now cannot hear this change: it must be woken when the feed is back.
      during = changes.watch(org, plan, 30_000);
      await changed(org, plan);
      expect(await settled(during.changed)).toBe(pending);
    } finally {
      await refuseConnections(database, false);
    }
    await until(() => changes.isListening());
    expect(await during.changed).toBe(true);
    expect(seen).toEqual([undefined, undefined]);
    before.cancel();
    during.cancel();

    const after = changes.watch(org, plan, 10_000);
    await changed(org, plan);
    expect(await after.changed).toBe(true);
    after.cancel();
  });

  it('wakes every long-poll when it closes', async () => {
    const changes = await started();
    const watch = changes.watch(randomUUID(), randomUUID(), 30_000);
    await changes.close();
    expect(await watch.changed).toBe(true);
    watch.cancel();
    expect(changes.isListening()).toBe(false);
  });
});
