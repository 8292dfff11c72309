import type { CallContext } from '@quarry/grpc';
import type { Kysely } from 'kysely';
import type { ContentEvent } from '../core/writes.js';
import type { Written } from '../core/idempotency.js';
import { insertRows } from './insert-row.js';
import type { StorageQuotas } from './storage-usage.js';
import { appendEvents } from './outbox.js';
import type { ArtifactDatabase, NewRow } from './schema.js';
import { inTenant } from './tenant.js';

/** One store_research write waiting for its commit. */
interface Pending {
  ctx: CallContext;
  row: NewRow<'artifact.research_artifacts'>;
  event: ContentEvent;
  resolve: (written: Written) => void;
  reject: (error: unknown) => void;
}

/** Writes of one org committed together at most (one transaction stays short). */
const MAX_GROUP = 100;

export interface ArtifactWriter {
  /**
   * Insert the artifact and its content.created event; resolves once they are committed, or at
   * once with the first row of the write's idempotency key (no event then).
   */
  write(ctx: CallContext, row: NewRow<'artifact.research_artifacts'>, event: ContentEvent): Promise<Written>;
}

/**
 * Group commit for single store_research calls: while one transaction of an org is in flight,
 * that org's next calls queue, and go together in the next transaction (one insert of rows, one
 * of events, one commit), so concurrent callers share the per-transaction cost instead of each
 * paying it (a group past the org's storage quota is refused as a whole, and then each write is
 * tried alone, so exactly those that fit are stored). Idle, a call is written at once (nothing waits for a timer). Each call still
 * returns only after its own row and event are committed. If a group's transaction fails, each
 * of its writes is retried alone, so one bad write fails only its own call.
 */
export function createArtifactWriter(
  db: Kysely<ArtifactDatabase>,
  quotas: StorageQuotas = { defaults: {} },
): ArtifactWriter {
  const queues = new Map<string, Pending[]>();
  const busy = new Set<string>();

  async function flush(orgId: string): Promise<void> {
    busy.add(orgId);
    try {
      for (let queue = queues.get(orgId); queue && queue.length > 0; queue = queues.get(orgId)) {
        const group = queue.splice(0, MAX_GROUP);
        if (queue.length === 0) queues.delete(orgId);
        await commitGroup(db, group, quotas);
      }
    } finally {
      busy.delete(orgId);
    }
  }

  return {
    write(ctx, row, event) {
      const orgId = ctx.identity.orgId;
      return new Promise<Written>((resolve, reject) => {
        let queue = queues.get(orgId);
        if (!queue) queues.set(orgId, (queue = []));
        queue.push({ ctx, row, event, resolve, reject });
        if (!busy.has(orgId)) void flush(orgId);
      });
    },
  };
}

async function commitGroup(db: Kysely<ArtifactDatabase>, group: Pending[], quotas: StorageQuotas): Promise<void> {
  if (group.length > 1) {
    try {
      const written = await commit(db, group, quotas);
      group.forEach((p, i) => p.resolve(written[i]!));
      return;
    } catch {
      // Some write of the group is refused (or the database failed): each alone, below, so
      // every call gets its own outcome.
    }
  }
  for (const p of group) {
    try {
      p.resolve((await commit(db, [p], quotas))[0]!);
    } catch (error) {
      p.reject(error);
    }
  }
}

/** The writes' rows, and the events of those stored now, in one transaction. */
function commit(db: Kysely<ArtifactDatabase>, writes: Pending[], quotas: StorageQuotas): Promise<Written[]> {
  return inTenant(db, writes[0]!.ctx, async (trx) => {
    const written = await insertRows(
      trx,
      'artifact.research_artifacts',
      writes[0]!.ctx.identity.orgId,
      writes.map((p) => p.row),
      quotas,
    );
    await appendEvents(
      trx,
      writes.flatMap((p, i) => {
        const w = written[i]!;
        return w.kind === 'stored' ? [{ ctx: p.ctx, source: w, event: p.event }] : [];
      }),
    );
    return written;
  });
}
