import type { Kysely } from 'kysely';
import { recordAuthEvent } from '../oauth/audit.js';
import { IdentityAdminError } from './admin.js';
import { inOrg, type Member, requireAdmin, type Role } from './member.js';
import type { IdentityDatabase } from './schema.js';

export interface MemberSummary {
  userId: string;
  email: string;
  name: string;
  role: Role;
  joinedAt: Date;
}

const ROLES: readonly Role[] = ['owner', 'admin', 'member'];

/** The organization's members (admins only). */
export async function listMembers(db: Kysely<IdentityDatabase>, member: Member): Promise<MemberSummary[]> {
  requireAdmin(member);
  return inOrg(db, member, (trx) =>
    trx
      .selectFrom('identity.memberships as m')
      .innerJoin('identity.users as u', 'u.id', 'm.user_id')
      .select(['u.id as userId', 'u.email', 'u.name', 'm.role', 'm.created_at as joinedAt'])
      .orderBy('u.email')
      .execute(),
  );
}

/**
 * Loads the target membership and checks the change: only owners touch owners (or make one), and
 * the organization always keeps an owner. Another organization's user is missing.
 */
async function target(trx: Kysely<IdentityDatabase>, member: Member, userId: string, newRole?: Role) {
  if (!/^[0-9a-f-]{36}$/i.test(userId)) throw new IdentityAdminError('NOT_FOUND', 'No such member.');
  const row = await trx
    .selectFrom('identity.memberships as m')
    .innerJoin('identity.users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.email', 'm.role'])
    .where('m.user_id', '=', userId)
    .executeTakeFirst();
  if (!row) throw new IdentityAdminError('NOT_FOUND', 'No such member.');
  if ((row.role === 'owner' || newRole === 'owner') && member.role !== 'owner')
    throw new IdentityAdminError('PERMISSION_DENIED', 'Only owners may change an owner or make one.');
  if (row.role === 'owner' && newRole !== 'owner') {
    const owners = await trx
      .selectFrom('identity.memberships')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('role', '=', 'owner')
      .executeTakeFirstOrThrow();
    if (Number(owners.n) <= 1)
      throw new IdentityAdminError('INVALID_ARGUMENT', 'The organization must keep an owner: make another one first.');
  }
  return row;
}

/** Changes a member's role (admins; owners for anything touching an owner). */
export async function setMemberRole(
  db: Kysely<IdentityDatabase>,
  member: Member,
  input: { userId: string; role: string },
): Promise<void> {
  requireAdmin(member);
  const role = ROLES.find((r) => r === input.role);
  if (!role) throw new IdentityAdminError('INVALID_ARGUMENT', 'The role is owner, admin or member.');
  await inOrg(db, member, async (trx) => {
    const row = await target(trx, member, input.userId, role);
    await trx.updateTable('identity.memberships').set({ role }).where('user_id', '=', row.id).execute();
    await recordAuthEvent(trx, {
      event: 'member_role_changed',
      email: row.email,
      userId: member.userId,
      orgSlug: member.orgSlug,
      detail: { from: row.role, to: role },
    });
  });
}

/**
 * Removes a member: their tokens and grants in this organization go with the membership (the
 * foreign keys cascade, and the revocation triggers tell every gateway at once).
 */
export async function removeMember(db: Kysely<IdentityDatabase>, member: Member, userId: string): Promise<void> {
  requireAdmin(member);
  await inOrg(db, member, async (trx) => {
    const row = await target(trx, member, userId);
    await trx.deleteFrom('identity.memberships').where('user_id', '=', row.id).execute();
    await recordAuthEvent(trx, {
      event: 'member_removed',
      email: row.email,
      userId: member.userId,
      orgSlug: member.orgSlug,
      detail: { role: row.role },
    });
  });
}
