import type { Kysely } from '@quarry/db';
import type { IdentityAdmin, IdentityDatabase } from '@quarry/gateway';

/** Runs `fn` with the identity admin over the operator's database connection (see database.ts). */
export type WithIdentityAdmin = <T>(
  fn: (admin: IdentityAdmin, db: Kysely<IdentityDatabase>) => Promise<T>,
) => Promise<T>;
