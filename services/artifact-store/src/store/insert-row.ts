import { randomUUID } from 'node:crypto';
import type { Insertable } from 'kysely';
import { type KeyedRow, replayOrConflict, type Written } from '../core/idempotency.js';

import type { ArtifactDatabase, NewRow } from './schema.js';
import { chargeStorage, type StorageQuotas } from './storage-usage.js';
import type { Trx } from './tenant.js';

/** The tables whose rows are stored as the handler built them: artifacts (and reports), outputs. */
type RowTable = 'artifact.research_artifacts' | 'artifact.research_outputs';

/** Both tables' idempotency columns (migrations/artifact/2026_11_28_1540_idempotent_writes.ts). */
type KeyColumns = Pick<NewRow<'artifact.research_outputs'>, 'idempotency_key' | 'request_hash'>;

/**
 * New rows of `orgId` by one statement, inside the caller's tenant transaction, their outcomes in
 * input order (ids are chosen here, so each row is matched to its input without relying on the
 * order RETURNING gives). A row whose idempotency key the org already used is not inserted
 * (`on conflict do nothing` on the unique key: of two racing transactions, the second waits for
 * the first's commit and then stores nothing); it is answered from the first row of that key,
 * which may be an earlier row of the same statement. The rows stored now are charged to the org's
 * storage quota in the same transaction (store/storage-usage.ts): past its limits, nothing is.
 */
export async function insertRows<T extends RowTable>(
  trx: Trx,
  table: T,
  orgId: string,
  rows: readonly NewRow<T>[],
  quotas: StorageQuotas = { defaults: {} },
): Promise<Written[]> {
  if (rows.length === 0) return [];
  const ids = rows.map(() => randomUUID());
  // NewRow<T> ties the rows to their table; kysely cannot follow a table left generic, so the
  // statement is built for either table.
  const inserted = await trx
    .insertInto(table as RowTable)
    .values(rows.map((row, i) => ({ ...row, id: ids[i], org_id: orgId }) as Insertable<ArtifactDatabase[RowTable]>))
    .onConflict((oc) => oc.columns(['org_id', 'idempotency_key']).where('idempotency_key', 'is not', null).doNothing())
    .returning(['id', 'created_at'])
    .execute();
  const createdAt = new Map(inserted.map((r) => [r.id, r.created_at]));
  const charged = rows.filter((_, i) => createdAt.has(ids[i]!)) as readonly { stored_bytes?: number }[];
  await chargeStorage(
    trx,
    orgId,
    { bytes: charged.reduce((sum, r) => sum + (r.stored_bytes ?? 0), 0), items: charged.length },
    quotas,
  );
  const keyed = rows as readonly KeyColumns[];
  const skipped = keyed.filter((_, i) => !createdAt.has(ids[i]!));
  const firsts = skipped.length
    ? await firstRowsOfKeys(
        trx,
        table,
        skipped.map((r) => r.idempotency_key!),
      )
    : new Map<string, KeyedRow>();
  return keyed.map((row, i): Written => {
    const at = createdAt.get(ids[i]!);
    if (at) return { kind: 'stored', id: ids[i]!, createdAt: at };
    const key = row.idempotency_key!;
    const first = firsts.get(key);
    // Deleted between the conflict and the read: the call fails, and its retry stores it again.
    if (!first) throw new Error('the row of an idempotency key was deleted while it was read; retry');
    return replayOrConflict(key, row.request_hash ?? null, first);
  });
}

/** One new row of `orgId` (see insertRows). */
export async function insertRow<T extends RowTable>(
  trx: Trx,
  table: T,
  orgId: string,
  row: NewRow<T>,
  quotas: StorageQuotas = { defaults: {} },
): Promise<Written> {
  const [written] = await insertRows(trx, table, orgId, [row], quotas);
  return written!;
}

/** The rows stored under these keys (row-level security: the caller's org only), by key. */
async function firstRowsOfKeys(trx: Trx, table: RowTable, keys: readonly string[]): Promise<Map<string, KeyedRow>> {
  const found = await trx
    .selectFrom(table)
    .select(['id', 'created_at', 'idempotency_key', 'request_hash'])
    .where('idempotency_key', 'in', [...new Set(keys)])
    .execute();
  return new Map(
    found.map((r) => [r.idempotency_key!, { id: r.id, createdAt: r.created_at, requestHash: r.request_hash }]),
  );
}
