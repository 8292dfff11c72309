import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { sql } from '@quarry/db';
import { newRow } from './fixtures.js';
import { a, asA, database, useSeededDatabase } from './seeded-database.js';

// The `plan` schema announces every change of a plan by itself, whatever the service code does:
// one notification per transaction, none for a change that changes nothing or is rolled back.

useSeededDatabase();

describe('plan changes are announced on quarry_plan_changed as "<org_id>:<plan_id>"', () => {
  const CHANNEL = 'quarry_plan_changed';
  let listener: pg.Client;
  const received: string[] = [];
  let arrived: () => void = () => {};

  beforeAll(async () => {
    listener = new pg.Client({ connectionString: database.appUrl });
    await listener.connect();
    listener.on('notification', (n) => {
      if (n.channel === CHANNEL) received.push(n.payload ?? '');
      arrived();
    });
    await listener.query(`listen ${CHANNEL}`);
  });
  afterAll(async () => {
    await listener?.end();
  });

  // Notifications arrive in commit order, so everything a change announced has arrived once a
  // marker sent after it has: no sleeping, and "nothing was announced" is a definite answer.
  async function announcedBy(change: () => Promise<unknown>): Promise<string[]> {
    received.length = 0;
    await change();
    const marker = `marker:${randomUUID()}`;
    await sql`select pg_notify(${CHANNEL}, ${marker})`.execute(database.admin);
    while (!received.includes(marker)) await new Promise<void>((resolve) => (arrived = resolve));
    return received.slice(0, received.indexOf(marker));
  }

  it('when a plan is created or its status changes', async () => {
    const planId = randomUUID();
    expect(
      await announcedBy(() =>
        asA((trx) =>
          trx
            .insertInto('plan.research_plans')
            .values({ id: planId, org_id: a.orgId, name: 'N', research_question: 'Q' })
            .execute(),
        ),
      ),
    ).toEqual([`${a.orgId}:${planId}`]);
    expect(
      await announcedBy(() =>
        asA((trx) =>
          trx.updateTable('plan.research_plans').set({ status: 'executing' }).where('id', '=', planId).execute(),
        ),
      ),
    ).toEqual([`${a.orgId}:${planId}`]);
  });

  it('when a step is added, changed or removed', async () => {
    const row = { ...newRow('plan_steps', a), id: randomUUID() };
    const expected = [`${a.orgId}:${a.planId}`];
    expect(await announcedBy(() => asA((trx) => trx.insertInto('plan.plan_steps').values(row).execute()))).toEqual(
      expected,
    );
    expect(
      await announcedBy(() =>
        asA((trx) =>
          trx
            .updateTable('plan.plan_steps')
            .set({ status: 'in_progress', started_at: new Date() })
            .where('id', '=', row.id)
            .execute(),
        ),
      ),
    ).toEqual(expected);
    expect(
      await announcedBy(() => asA((trx) => trx.deleteFrom('plan.plan_steps').where('id', '=', row.id).execute())),
    ).toEqual(expected);
  });

  it('once per transaction, however many rows of the plan it changes', async () => {
    const payloads = await announcedBy(() =>
      asA(async (trx) => {
        await trx
          .updateTable('plan.plan_steps')
          .set({ instructions: sql`instructions || '.'` })
          .where('plan_id', '=', a.planId)
          .execute();
        await trx
          .updateTable('plan.research_plans')
          .set({ updated_at: sql`now()` })
          .where('id', '=', a.planId)
          .execute();
      }),
    );
    expect(payloads).toEqual([`${a.orgId}:${a.planId}`]);
  });

  it('not for an update that changes nothing, nor for a rolled-back change', async () => {
    expect(
      await announcedBy(() =>
        asA((trx) => sql`update plan.research_plans set status = status where id = ${a.planId}`.execute(trx)),
      ),
    ).toEqual([]);
    const rolledBack = () =>
      asA(async (trx) => {
        await trx.updateTable('plan.research_plans').set({ status: 'stalled' }).where('id', '=', a.planId).execute();
        throw new Error('roll back');
      });
    expect(
      await announcedBy(() => rolledBack().catch((error: Error) => expect(error.message).toBe('roll back'))),
    ).toEqual([]);
  });
});
