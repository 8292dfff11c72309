import type { AnyDb } from '@quarry/db';
import { sql } from 'kysely';
import type { KeyObject } from 'node:crypto';
import type { Logger } from 'pino';
import { signCheckpoint } from './core/audit-checkpoint.js';
import { runPeriodically } from './periodic.js';

/**
 * Signs a checkpoint for every org whose chain grew since its last one (up to `maxOrgs` per
 * statement, repeated until fewer come back); returns how many it recorded. The heads are read
 * and the checkpoints recorded through plan.audit_heads_to_checkpoint and
 * plan.record_audit_checkpoint, the only cross-org paths to the ledger (members of
 * quarry_plan_maintenance, like the stall sweep). Each checkpoint is also logged: a copy outside
 * the database, which whoever controls the database cannot take back.
 */
export async function checkpointAuditChains(
  db: AnyDb,
  options: { signingKey: KeyObject; logger: Logger; maxOrgs?: number; now?: () => Date },
): Promise<number> {
  const { signingKey, logger, maxOrgs = 500, now = () => new Date() } = options;
  let recorded = 0;
  for (let batch = maxOrgs; batch === maxOrgs;) {
    const { rows } = await sql<{ org_id: string; entries: string; head_hash: string }>`
      select org_id::text, entries::text, head_hash from plan.audit_heads_to_checkpoint(${maxOrgs}::integer)`.execute(
      db,
    );
    batch = rows.length;
    for (const row of rows) {
      const checkpoint = signCheckpoint(signingKey, {
        orgId: row.org_id,
        entries: Number(row.entries),
        headHash: row.head_hash,
        signedAt: now().toISOString(),
      });
      await sql`select plan.record_audit_checkpoint(${checkpoint.orgId}::uuid, ${checkpoint.entries}::bigint,
        ${checkpoint.headHash}, ${checkpoint.signedAt}::timestamptz, ${checkpoint.keyId}, ${checkpoint.signature})`.execute(
        db,
      );
      logger.info({ auditCheckpoint: checkpoint }, 'audit checkpoint signed');
      recorded += 1;
    }
  }
  return recorded;
}

export interface AuditCheckpointerOptions {
  db: AnyDb;
  signingKey: KeyObject;
  intervalMs: number;
  logger: Logger;
}

/**
 * Checkpoints every `intervalMs` (first after one interval) until stopped; `stop` waits for a
 * round in flight. A failed round is logged and the next one tries again; what a stopped engine
 * left unsigned is signed by the next one to run.
 */
export function startAuditCheckpointer(options: AuditCheckpointerOptions): { stop(): Promise<void> } {
  const { db, signingKey, intervalMs, logger } = options;
  const round = async () => {
    try {
      await checkpointAuditChains(db, { signingKey, logger });
    } catch (err) {
      logger.warn({ err }, 'audit checkpoint failed; the next round tries again');
    }
  };
  return runPeriodically(intervalMs, round);
}
