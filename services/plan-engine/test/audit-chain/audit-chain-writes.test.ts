import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql, withTenant } from '@quarry/db';
import { randomUUID } from 'node:crypto';
import { markStalledPlans } from '../../src/stall-sweep.js';
import { asSuperuserWithoutTriggers, chainPositions, verifyOrg } from '../support/audit-chain.js';
import { stepsOf } from '../support/plan-api.js';
import { startTestPlanEngine, type TestPlanEngine } from '../support/plan-engine.js';

// Every way an audit entry is written joins its org's hash chain in the writing transaction:
// requests (the app role), the stall sweep's SQL, the deletion tombstone; concurrent writers of
// one org are serialised (one position each, no gaps), and the core verifies what the database
// computed, whatever the content holds.

let engine: TestPlanEngine;
const admin = () => engine.database.admin;

beforeAll(async () => {
  engine = await startTestPlanEngine();
});
afterAll(async () => {
  await engine?.close();
});

const positions = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('the audit chain as it is written', () => {
  it('chains the rows of a research session and of the stall sweep, in order from 1, and verifies', async () => {
    const org = engine.newOrg();
    const { planId } = await org.call('createResearchPlan', {
      name: 'Chained',
      researchQuestion: 'Does it hold?',
      steps: stepsOf('search', 'analyze'),
    });
    const step = (await org.call('getNextStep', { planId })).step!;
    await org.call('submitStepResult', { planId, stepId: step.stepId, result: { found: 'yes "quoted"\nand\tmore' } });
    const next = (await org.call('getNextStep', { planId })).step!;
    await sql`update plan.plan_steps set started_at = now() - interval '2 hours' where id = ${next.stepId}`.execute(
      admin(),
    );
    expect(await markStalledPlans(engine.database.app, { thresholdMs: 60_000, maxPlans: 10 })).toBeGreaterThan(0);

    const chain = await chainPositions(admin(), org.orgId);
    expect(chain.map(([seq]) => seq)).toEqual(positions(chain.length));
    expect(chain.length).toBeGreaterThanOrEqual(5);
    const verified = await verifyOrg(admin(), org.orgId);
    expect(verified).toMatchObject({ entries: chain.length, rows: chain.length, signaturesChecked: false });
    expect(verified.break).toBeUndefined();
    const { rows: heads } = await sql<{ last_seq: string; head_hash: string }>`
      select last_seq::text, head_hash from plan_ledger.chain_heads where org_id = ${org.orgId}`.execute(admin());
    expect(heads).toEqual([{ last_seq: String(chain.length), head_hash: verified.headHash }]);
  });

  it('serialises concurrent writers of one org: 40 transactions, 40 positions, no gap, no twin, and two orgs apart', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    for (const orgId of [a, b]) {
      await admin()
        .insertInto('plan.research_plans')
        .values({ id: orgId, org_id: orgId, name: 'P', research_question: 'Q' })
        .execute();
    }
    // Each transaction holds its position a little before committing, so the writers overlap.
    const write = (orgId: string, i: number) =>
      withTenant(engine.database.app, { orgId }, async (trx) => {
        await sql`insert into plan.plan_audit_log (org_id, plan_id, event_type, details)
                  values (${orgId}, ${orgId}, 'session_resumed', ${JSON.stringify({ i })})`.execute(trx);
        await sql`select pg_sleep(${(i % 5) / 200})`.execute(trx);
      });
    const began = performance.now();
    await Promise.all(positions(40).flatMap((i) => [write(a, i), write(b, i)]));
    expect(performance.now() - began).toBeLessThan(30_000);
    for (const orgId of [a, b]) {
      expect((await chainPositions(admin(), orgId)).map(([seq]) => seq)).toEqual(positions(40));
      const verified = await verifyOrg(admin(), orgId);
      expect(verified.break).toBeUndefined();
      expect(verified.entries).toBe(40);
    }
  });

  it('serialises concurrent requests of one org through the engine', async () => {
    const org = engine.newOrg();
    await Promise.all(
      positions(12).map((i) =>
        org.call('createResearchPlan', { name: `P${i}`, researchQuestion: 'Q?', steps: stepsOf('search') }),
      ),
    );
    const chain = await chainPositions(admin(), org.orgId);
    expect(chain.map(([seq]) => seq)).toEqual(positions(12));
    expect((await verifyOrg(admin(), org.orgId)).break).toBeUndefined();
  });

  it('verifies content PostgreSQL prints its own way: escapes, control characters, non-ASCII, numbers, nulls', async () => {
    const orgId = randomUUID();
    await admin()
      .insertInto('plan.research_plans')
      .values({ id: orgId, org_id: orgId, name: 'P', research_question: 'Q' })
      .execute();
    const details = [
      `{"a": 1.50, "b": 1e2, "c": -0.0, "d": 123456789012345678901234567890, "e": null, "f": [true, false, {}]}`,
      `{"quote": "\\"", "back": "\\\\", "ctl": "\\u0001\\u001f\\b\\f\\n\\r\\t", "del": "\\u007f", "u": "é漢字🙂\\u2028"}`,
      `{"zz": 1, "a": 2, "longer key": {"nested": {"deep": "x"}}, "": "empty key"}`,
      `{}`,
    ];
    for (const [i, d] of details.entries()) {
      await sql`insert into plan.plan_audit_log (org_id, plan_id, session_id, event_type, details)
                values (${orgId}, ${orgId}, ${i % 2 ? null : 'sess "\n\u0002é'}, 'feedback_recorded', ${d}::jsonb)`.execute(
        admin(),
      );
    }
    const verified = await verifyOrg(admin(), orgId);
    expect(verified.break).toBeUndefined();
    expect(verified.entries).toBe(details.length);
  });

  it('keeps the chain verifiable across delete_plan: the tombstone is an entry and holds the purged links', async () => {
    const org = engine.newOrg();
    const kept = await org.call('createResearchPlan', {
      name: 'Kept',
      researchQuestion: 'Q?',
      steps: stepsOf('search'),
    });
    const gone = await org.call('createResearchPlan', {
      name: 'Gone',
      researchQuestion: 'Q?',
      steps: stepsOf('search'),
    });
    await org.call('getNextStep', { planId: gone.planId });
    await org.call('getNextStep', { planId: kept.planId });
    const before = await chainPositions(admin(), org.orgId);
    await org.call('deletePlan', { planId: gone.planId });

    const after = await chainPositions(admin(), org.orgId);
    const { rows } = await sql<{ chain_seq: string; purged_links: [number, string][]; audit_rows_purged: number }>`
      select chain_seq::text, purged_links, audit_rows_purged from plan.deleted_plans where plan_id = ${gone.planId}`.execute(
      admin(),
    );
    expect(rows).toHaveLength(1);
    const tombstone = rows[0]!;
    expect(Number(tombstone.chain_seq)).toBe(before.length + 1);
    expect(tombstone.purged_links).toHaveLength(tombstone.audit_rows_purged);
    expect(tombstone.audit_rows_purged).toBeGreaterThan(0);
    // Every position is a live entry or a purged link, once.
    const live = after.map(([seq]) => seq);
    const purged = tombstone.purged_links.map(([seq]) => seq);
    expect([...live, ...purged].sort((x, y) => x - y)).toEqual(positions(before.length + 1));
    const verified = await verifyOrg(admin(), org.orgId);
    expect(verified).toMatchObject({ entries: before.length + 1, tombstones: 1, purged: purged.length });
    expect(verified.break).toBeUndefined();

    // The purged links are the tombstone's content: a changed one breaks the chain where it stood.
    const first = Math.min(...purged);
    await asSuperuserWithoutTriggers(admin(), (trx) =>
      sql`update plan.deleted_plans set purged_links = jsonb_set(purged_links, '{0,1}', ${JSON.stringify('c'.repeat(64))}::jsonb)
          where plan_id = ${gone.planId}`.execute(trx),
    );
    expect((await verifyOrg(admin(), org.orgId)).break).toMatchObject({
      seq: Math.min(...live.filter((seq) => seq > first)),
      reason: expect.stringMatching(/prev_hash/),
    });
  });
});
