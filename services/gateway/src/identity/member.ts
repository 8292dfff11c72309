import { isUuid, withTenant } from '@quarry/db';
import { type Kysely, sql } from 'kysely';
import { IdentityAdminError } from './admin.js';
import type { IdentityDatabase } from './schema.js';

export type Role = 'owner' | 'admin' | 'member';

/** A signed-in person acting in one of their organizations, with their role there. */
export interface Member {
  readonly orgId: string;
  readonly orgSlug: string;
  readonly orgName: string;
  readonly userId: string;
  readonly email: string;
  readonly name: string;
  readonly role: Role;
}

/** Owners and admins manage the organization; members manage only what is theirs. */
export function isAdmin(member: Pick<Member, 'role'>): boolean {
  return member.role === 'owner' || member.role === 'admin';
}

/** Refuses a member's call to an admin action; checked in the service, whatever the page shows. */
export function requireAdmin(member: Pick<Member, 'role'>): void {
  if (!isAdmin(member))
    throw new IdentityAdminError('PERMISSION_DENIED', 'Only owners and admins of the organization may do this.');
}

/**
 * The organizations a user belongs to, with their role in each (the membership_lookup policy lets
 * the user read their own memberships before any org is chosen).
 */
export async function membershipsOf(db: Kysely<IdentityDatabase>, userId: string): Promise<Member[]> {
  if (!isUuid(userId)) return [];
  return db.transaction().execute(async (trx) => {
    await sql`select set_config('app.user_id', ${userId}, true)`.execute(trx);
    return trx
      .selectFrom('identity.memberships as m')
      .innerJoin('identity.organizations as o', 'o.id', 'm.org_id')
      .innerJoin('identity.users as u', 'u.id', 'm.user_id')
      .select([
        'o.id as orgId',
        'o.slug as orgSlug',
        'o.name as orgName',
        'u.id as userId',
        'u.email',
        'u.name',
        'm.role',
      ])
      .where('m.user_id', '=', userId)
      .orderBy('o.slug')
      .execute();
  });
}

/** Runs `fn` in one transaction of the member's organization: row-level security applies. */
export function inOrg<T>(
  db: Kysely<IdentityDatabase>,
  member: Pick<Member, 'orgId'>,
  fn: (trx: Kysely<IdentityDatabase>) => Promise<T>,
): Promise<T> {
  return withTenant(db, { orgId: member.orgId }, fn);
}
