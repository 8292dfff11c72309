import { type AnyDb, sql } from '@quarry/db';
import type { KeyObject } from 'node:crypto';
import { type ChainVerification, readAuditChain, verifyAuditChain } from '../../src/index.js';

/** One org's chain as `quarry audit verify` checks it: read as the admin, verified by the core. */
export async function verifyOrg(admin: AnyDb, orgId: string, publicKey?: KeyObject): Promise<ChainVerification> {
  return verifyAuditChain({ orgId, ...(await readAuditChain(admin, orgId)), ...(publicKey ? { publicKey } : {}) });
}

/** The org's entries in chain order: [chain_seq, table] of its audit rows and tombstones. */
export async function chainPositions(admin: AnyDb, orgId: string): Promise<[number, string][]> {
  const { rows } = await sql<{ seq: string; kind: string }>`
    select chain_seq::text as seq, 'row' as kind from plan.plan_audit_log where org_id = ${orgId}
    union all select chain_seq::text, 'tombstone' from plan.deleted_plans where org_id = ${orgId}
    order by 1`.execute(admin);
  return rows.map((r) => [Number(r.seq), r.kind]).sort((a, b) => (a[0] as number) - (b[0] as number)) as [
    number,
    string,
  ][];
}

/** Run `fn` as the superuser with every trigger off (session_replication_role = replica): what a database owner can do. */
export async function asSuperuserWithoutTriggers(admin: AnyDb, fn: (trx: AnyDb) => Promise<unknown>): Promise<void> {
  await admin.transaction().execute(async (trx) => {
    await sql`set local session_replication_role = replica`.execute(trx);
    await fn(trx);
  });
}
