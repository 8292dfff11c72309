import { createHash, randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { recordAuthEvent } from '../oauth/audit.js';
import { createOAuthAdmin } from '../oauth/admin.js';
import { verifyPassword } from '../oauth/passwords.js';
import { createIdentityAdmin, IdentityAdminError } from './admin.js';
import { inOrg, type Member, requireAdmin } from './member.js';
import type { IdentityDatabase } from './schema.js';

/** Every invitation link token starts with this, so scanners and log scrubbers can find one. */
const INVITATION_PREFIX = 'qin_';
const INVITATION_TOKEN = /^qin_[A-Za-z0-9_-]{43}$/;
const EMAIL = /^[^@\s]+@[^@\s]+$/;
/** How long a link works unless the admin says otherwise. */
const INVITATION_TTL_MS = 7 * 24 * 3600_000;

export interface InvitationSummary {
  id: string;
  email: string;
  role: 'admin' | 'member';
  createdAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
  revokedAt: Date | null;
}

/** An invitation just made: `token` goes into the link, shown (or mailed) this once. */
export interface CreatedInvitation extends InvitationSummary {
  token: string;
}

/** What the invitee's page shows before they accept. */
export interface OpenInvitation {
  email: string;
  role: 'admin' | 'member';
  orgName: string;
  orgSlug: string;
  expiresAt: Date;
}

const hashOf = (token: string) => createHash('sha256').update(token, 'utf8').digest();

const SUMMARY = [
  'id',
  'email',
  'role',
  'created_at as createdAt',
  'expires_at as expiresAt',
  'accepted_at as acceptedAt',
  'revoked_at as revokedAt',
] as const;

/** An admin invites an email into their organization with a role; the link token is returned once. */
export async function createInvitation(
  db: Kysely<IdentityDatabase>,
  member: Member,
  input: { email: string; role: string; ttlMs?: number },
): Promise<CreatedInvitation> {
  requireAdmin(member);
  const email = input.email.trim().toLowerCase();
  if (!EMAIL.test(email)) throw new IdentityAdminError('INVALID_ARGUMENT', `Invalid email "${input.email}".`);
  if (input.role !== 'admin' && input.role !== 'member')
    throw new IdentityAdminError('INVALID_ARGUMENT', 'The role of an invitee is admin or member.');
  const role = input.role;
  const token = INVITATION_PREFIX + randomBytes(32).toString('base64url');
  return inOrg(db, member, async (trx) => {
    const already = await trx
      .selectFrom('identity.memberships as m')
      .innerJoin('identity.users as u', 'u.id', 'm.user_id')
      .select('u.id')
      .where('u.email', '=', email)
      .executeTakeFirst();
    if (already) throw new IdentityAdminError('ALREADY_EXISTS', `${email} is already a member of ${member.orgSlug}.`);
    const row = await trx
      .insertInto('identity.invitations')
      .values({
        org_id: member.orgId,
        email,
        role,
        token_hash: hashOf(token),
        invited_by: member.userId,
        expires_at: new Date(Date.now() + (input.ttlMs ?? INVITATION_TTL_MS)),
      })
      .returning(SUMMARY)
      .executeTakeFirstOrThrow();
    await recordAuthEvent(trx, {
      event: 'invitation_created',
      email,
      userId: member.userId,
      orgSlug: member.orgSlug,
      detail: { role, invitation: row.id },
    });
    return { ...row, token };
  });
}

/** The organization's invitations, newest first (admins only). */
export async function listInvitations(db: Kysely<IdentityDatabase>, member: Member): Promise<InvitationSummary[]> {
  requireAdmin(member);
  return inOrg(db, member, (trx) =>
    trx.selectFrom('identity.invitations').select(SUMMARY).orderBy('created_at', 'desc').limit(200).execute(),
  );
}

/** Its link stops working; another organization's invitation is missing like an unknown one. */
export async function revokeInvitation(db: Kysely<IdentityDatabase>, member: Member, id: string): Promise<void> {
  requireAdmin(member);
  if (!/^[0-9a-f-]{36}$/i.test(id)) throw new IdentityAdminError('NOT_FOUND', 'No such invitation.');
  await inOrg(db, member, async (trx) => {
    const row = await trx
      .updateTable('identity.invitations')
      .set({ revoked_at: sql`coalesce(revoked_at, now())` })
      .where('id', '=', id)
      .where('accepted_at', 'is', null)
      .returning(['email'])
      .executeTakeFirst();
    if (!row) throw new IdentityAdminError('NOT_FOUND', 'No such invitation.');
    await recordAuthEvent(trx, {
      event: 'invitation_revoked',
      email: row.email,
      userId: member.userId,
      orgSlug: member.orgSlug,
      detail: { invitation: id },
    });
  });
}

/** Reads the invitation of a link token, as its holder may (invitation_lookup policy). */
async function byToken(trx: Kysely<IdentityDatabase>, token: string) {
  const hash = hashOf(token);
  await sql`select set_config('app.invitation_hash', ${hash.toString('hex')}, true)`.execute(trx);
  return trx
    .selectFrom('identity.invitations as i')
    .innerJoin('identity.organizations as o', 'o.id', 'i.org_id')
    .select([
      'i.id',
      'i.org_id as orgId',
      'o.slug as orgSlug',
      'o.name as orgName',
      'i.email',
      'i.role',
      'i.expires_at as expiresAt',
      'i.accepted_at as acceptedAt',
      'i.revoked_at as revokedAt',
    ])
    .where('i.token_hash', '=', hash)
    .executeTakeFirst();
}

type Found = NonNullable<Awaited<ReturnType<typeof byToken>>>;
const usable = (row: Found | undefined): row is Found =>
  row !== undefined && !row.acceptedAt && !row.revokedAt && row.expiresAt.getTime() > Date.now();

/**
 * The invitation a link names while it can still be accepted; undefined for an unknown, used,
 * revoked or expired link (the page says the same for all four).
 */
export async function openInvitation(db: Kysely<IdentityDatabase>, token: string): Promise<OpenInvitation | undefined> {
  if (!INVITATION_TOKEN.test(token)) return undefined;
  const row = await db.transaction().execute((trx) => byToken(trx, token));
  if (!usable(row)) return undefined;
  return { email: row.email, role: row.role, orgName: row.orgName, orgSlug: row.orgSlug, expiresAt: row.expiresAt };
}

/**
 * Accepts an invitation: the invitee becomes a member with the invited role and signs in with
 * the password set here. Single use: the row is claimed in the same transaction, so two
 * concurrent accepts of one link make one member.
 */
export async function acceptInvitation(
  db: Kysely<IdentityDatabase>,
  input: { token: string; name: string; password: string; ip?: string },
): Promise<{ userId: string; orgId: string; orgSlug: string }> {
  const gone = () => new IdentityAdminError('NOT_FOUND', 'This invitation link is not valid any more.');
  if (!INVITATION_TOKEN.test(input.token)) throw gone();
  return db.transaction().execute(async (trx) => {
    const row = await byToken(trx, input.token);
    if (!usable(row)) throw gone();
    await sql`select set_config('app.org_id', ${row.orgId}, true)`.execute(trx);
    const claimed = await trx
      .updateTable('identity.invitations')
      .set({ accepted_at: sql`now()` })
      .where('id', '=', row.id)
      .where('accepted_at', 'is', null)
      .where('revoked_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
    if (!claimed) throw gone();
    // An email that already has a password is an existing account: joining takes that password
    // (sign-in), never sets a new one, or whoever holds the link (the inviting admin too) could
    // take the account over.
    const existing = await trx
      .selectFrom('identity.users as u')
      .leftJoin('identity.user_passwords as p', 'p.user_id', 'u.id')
      .select(['u.id', 'p.password_hash'])
      .where('u.email', '=', row.email)
      .executeTakeFirst();
    // Someone who is a member already keeps their role: a stale invitation changes nothing.
    const member =
      existing &&
      (await trx
        .selectFrom('identity.memberships')
        .select('role')
        .where('user_id', '=', existing.id)
        .executeTakeFirst());
    if (member) throw new IdentityAdminError('ALREADY_EXISTS', `${row.email} is already a member of ${row.orgName}.`);
    if (existing?.password_hash && !(await verifyPassword(existing.password_hash, input.password)))
      throw new IdentityAdminError(
        'PERMISSION_DENIED',
        `${row.email} already has a Quarry account: enter its password to join ${row.orgName}.`,
      );
    const user = await createIdentityAdmin(trx).addUser({
      email: row.email,
      orgSlug: row.orgSlug,
      name: existing ? undefined : input.name.trim() || undefined,
      role: row.role,
    });
    if (!existing?.password_hash) await createOAuthAdmin(trx).setPassword(user.email, input.password);
    await trx.updateTable('identity.invitations').set({ accepted_by: user.id }).where('id', '=', row.id).execute();
    await recordAuthEvent(trx, {
      event: 'invitation_accepted',
      email: user.email,
      userId: user.id,
      orgSlug: row.orgSlug,
      ip: input.ip,
      detail: { invitation: row.id, role: row.role },
    });
    return { userId: user.id, orgId: row.orgId, orgSlug: row.orgSlug };
  });
}
