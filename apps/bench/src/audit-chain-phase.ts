import { createDb, sql, type AnyDb } from '@quarry/db';
import { readAuditChain, verifyAuditChain } from '@quarry/plan-engine';
import { randomUUID } from 'node:crypto';
import { compared, type Results } from './report.js';
import type { Phase } from './phase.js';

/** Single-row transactions timed per variant of the insert cost, in alternating rounds (neither gets the warm caches). */
const INSERTS = 2_000;
const ROUNDS = 4;
/**
 * Rows per transaction while loading the chain that is then verified: requests write one to
 * three; each one of an org in the same transaction walks the versions its predecessors left on
 * the org's head row, so one huge transaction would measure that instead.
 */
const LOAD_BATCH = 100;

async function newOrg(admin: AnyDb): Promise<string> {
  const orgId = randomUUID();
  await sql`insert into plan.research_plans (id, org_id, name, research_question) values (${orgId}, ${orgId}, 'Audit bench', 'How fast?')`.execute(
    admin,
  );
  return orgId;
}

/** Total ms of one-row transactions `from`..`to`, each under the org's tenant like a request's. */
async function insertRound(admin: AnyDb, orgId: string, chained: boolean, from: number, to: number): Promise<number> {
  const began = performance.now();
  for (let i = from; i <= to; i++) {
    await admin.transaction().execute(async (trx) => {
      await sql`select set_config('app.org_id', ${orgId}, true)`.execute(trx);
      if (chained) {
        await sql`insert into plan.plan_audit_log (org_id, plan_id, event_type, details)
                  values (${orgId}, ${orgId}, 'session_resumed', ${JSON.stringify({ i })})`.execute(trx);
      } else {
        await sql`insert into plan.plan_audit_log (org_id, plan_id, event_type, details, chain_seq, prev_hash, row_hash)
                  values (${orgId}, ${orgId}, 'session_resumed', ${JSON.stringify({ i })}, ${i}, ${'0'.repeat(64)}, ${'0'.repeat(64)})`.execute(
          trx,
        );
      }
    });
  }
  return performance.now() - began;
}

/** Mean µs per one-row transaction with the chain trigger on and off, measured in alternating rounds. */
async function insertCosts(admin: AnyDb): Promise<{ chained: number; unchained: number }> {
  const [chainedOrg, unchainedOrg] = [await newOrg(admin), await newOrg(admin)];
  const perRound = INSERTS / ROUNDS;
  let chainedMs = 0;
  let unchainedMs = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const [from, to] = [round * perRound + 1, (round + 1) * perRound];
    chainedMs += await insertRound(admin, chainedOrg, true, from, to);
    await sql`alter table plan.plan_audit_log disable trigger plan_audit_log_chain`.execute(admin);
    try {
      unchainedMs += await insertRound(admin, unchainedOrg, false, from, to);
    } finally {
      await sql`alter table plan.plan_audit_log enable trigger plan_audit_log_chain`.execute(admin);
    }
  }
  return { chained: (chainedMs * 1000) / INSERTS, unchained: (unchainedMs * 1000) / INSERTS };
}

/**
 * The tamper-evident audit log (ADR 0052): what chaining adds to one audit row's insert (the
 * same one-row transactions with the chain trigger on, and off with the columns given), the
 * rate of a bulk load through the trigger, and `quarry audit verify`'s read and check of one
 * org's chain of `sizes.auditRows` entries.
 */
export const auditChainPhase: Phase = {
  name: 'audit',
  async run({ system, sizes, progress }) {
    const admin = createDb<unknown>({
      connectionString: system.adminUrl,
      applicationName: 'quarry-bench-audit',
      max: 1,
    });
    try {
      const results: Results = {};
      progress(
        `insert cost: ${INSERTS} one-row transactions chained and as many unchained, in ${ROUNDS} alternating rounds`,
      );
      const { chained, unchained } = await insertCosts(admin);
      results.audit_insert_chained_us = compared(chained, unchained, 'µs');
      results.audit_insert_chain_overhead_us = { value: chained - unchained, unit: 'µs' };

      const rows = sizes.auditRows;
      progress(`loading a chain of ${rows} rows, ${LOAD_BATCH} per transaction`);
      const orgId = await newOrg(admin);
      const loadBegan = performance.now();
      for (let done = 0; done < rows; done += LOAD_BATCH) {
        const n = Math.min(LOAD_BATCH, rows - done);
        await admin.transaction().execute(async (trx) => {
          await sql`select set_config('app.org_id', ${orgId}, true)`.execute(trx);
          await sql`insert into plan.plan_audit_log (org_id, plan_id, event_type, details)
                    select ${orgId}::uuid, ${orgId}::uuid, 'step_completed',
                           jsonb_build_object('stepOrder', i, 'confidence', 0.75, 'via', 'result', 'branch', null)
                    from generate_series(1, ${n}::integer) i`.execute(trx);
        });
      }
      results.audit_chained_load_rows_per_s = {
        value: rows / ((performance.now() - loadBegan) / 1000),
        unit: 'rows/s',
      };

      progress(`verifying the chain of ${rows} rows`);
      const readBegan = performance.now();
      const chain = await readAuditChain(admin, orgId);
      const readS = (performance.now() - readBegan) / 1000;
      const verifyBegan = performance.now();
      const verified = verifyAuditChain({ orgId, ...chain });
      const verifyS = (performance.now() - verifyBegan) / 1000;
      if (verified.break || verified.entries !== rows)
        throw new Error(`the bench chain does not verify: ${JSON.stringify(verified.break ?? verified.entries)}`);
      results.audit_verify_rows = { value: rows, unit: 'rows' };
      results.audit_verify_read_s = { value: readS, unit: 's' };
      results.audit_verify_check_s = { value: verifyS, unit: 's' };
      results.audit_verify_total_s = { value: readS + verifyS, unit: 's' };
      return results;
    } finally {
      await admin.destroy();
    }
  },
};
