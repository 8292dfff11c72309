import { type Kysely, sql } from 'kysely';
import type { IdentityDatabase } from '../identity/schema.js';

export type AuthEvent =
  | 'sign_in'
  | 'sign_in_failed'
  | 'sso_refused'
  | 'consent'
  | 'consent_denied'
  | 'token_issued'
  | 'grant_revoked'
  | 'service_account_created'
  | 'service_account_secret_rotated'
  | 'service_account_revoked'
  | 'first_run_setup'
  | 'invitation_created'
  | 'invitation_accepted'
  | 'invitation_revoked'
  | 'member_role_changed'
  | 'member_removed'
  | 'token_created'
  | 'token_revoked';

export interface AuthEventRecord {
  event: AuthEvent;
  email?: string | null;
  userId?: string | null;
  orgSlug?: string | null;
  clientId?: string | null;
  ip?: string | null;
  detail?: Record<string, unknown>;
}

/** Appends to the audit log of sign-ins, consents and token issuance. */
export async function recordAuthEvent(db: Kysely<IdentityDatabase>, record: AuthEventRecord): Promise<void> {
  await db
    .insertInto('identity.auth_events')
    .values({
      event: record.event,
      email: record.email ?? null,
      user_id: record.userId ?? null,
      org_slug: record.orgSlug ?? null,
      client_id: record.clientId ?? null,
      ip: record.ip ?? null,
      detail: record.detail ? JSON.stringify(record.detail) : null,
    })
    .execute();
}

/** Failed sign-ins recorded for this email and from this address within the window. */
export async function recentFailures(
  db: Kysely<IdentityDatabase>,
  { email, ip, windowMs }: { email: string; ip: string; windowMs: number },
): Promise<{ byEmail: number; byIp: number }> {
  const since = new Date(Date.now() - windowMs);
  const row = await db
    .selectFrom('identity.auth_events')
    .select([
      sql<number>`count(*) filter (where email = ${email})::int`.as('byEmail'),
      sql<number>`count(*) filter (where ip = ${ip})::int`.as('byIp'),
    ])
    .where('event', '=', 'sign_in_failed')
    .where('occurred_at', '>', since)
    .executeTakeFirstOrThrow();
  return row;
}
