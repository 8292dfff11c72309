import type { Kysely } from 'kysely';
import type { Member } from '../identity/member.js';
import { isAdmin } from '../identity/member.js';
import type { IdentityDatabase } from '../identity/schema.js';

/**
 * Whether the member administers the operator organization, the one that runs this Quarry:
 * QUARRY_OPERATOR_ORG when set, else the first organization created (first-run setup's, or
 * `quarry start`'s default). The operations page shows every tenant's health: no one else sees it.
 */
export async function isOperatorAdmin(
  db: Kysely<IdentityDatabase>,
  member: Member,
  operatorOrg: string | undefined,
): Promise<boolean> {
  if (!isAdmin(member)) return false;
  if (operatorOrg) return member.orgSlug === operatorOrg;
  const first = await db
    .selectFrom('identity.organizations')
    .select('slug')
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return first?.slug === member.orgSlug;
}
