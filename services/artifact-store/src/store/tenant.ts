import { withTenant } from '@quarry/db';
import type { CallContext } from '@quarry/grpc';
import type { Kysely, Transaction } from 'kysely';
import type { ArtifactDatabase } from './schema.js';

export type Trx = Transaction<ArtifactDatabase>;

/** One transaction under the caller's org: row-level security sees only that org's rows. */
export function inTenant<T>(db: Kysely<ArtifactDatabase>, ctx: CallContext, fn: (trx: Trx) => Promise<T>): Promise<T> {
  return withTenant(db, { orgId: ctx.identity.orgId }, fn);
}
