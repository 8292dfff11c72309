import type { Kysely } from 'kysely';
import type { IdentityDatabase } from '../identity/schema.js';
import { type AuthEventRecord, recentFailures, recordAuthEvent } from './audit.js';
import { verifyPassword } from './passwords.js';

/** How a password sign-in went: too many recent failures, a wrong email or password, or the user. */
export type PasswordSignIn =
  { outcome: 'throttled' } | { outcome: 'refused' } | { outcome: 'signed_in'; userId: string };

/**
 * One password sign-in, wherever a person signs in (the OAuth interaction, the library): the
 * failure limits per email and per IP, the check against the stored hash (as slow for an unknown
 * email), and the audit record of the outcome with `context` (the client, or where it happened).
 */
export async function signInWithPassword(
  db: Kysely<IdentityDatabase>,
  attempt: { email: string; password: string; ip: string },
  limits: { windowMs: number; maxFailures: number },
  context: Pick<AuthEventRecord, 'clientId' | 'detail'>,
): Promise<PasswordSignIn> {
  const { email, ip } = attempt;
  const failures = await recentFailures(db, { email, ip, windowMs: limits.windowMs });
  if (failures.byEmail >= limits.maxFailures || failures.byIp >= limits.maxFailures * 10)
    return { outcome: 'throttled' };
  const user = await db
    .selectFrom('identity.users as u')
    .leftJoin('identity.user_passwords as p', 'p.user_id', 'u.id')
    .select(['u.id', 'p.password_hash'])
    .where('u.email', '=', email)
    .executeTakeFirst();
  const ok = await verifyPassword(user?.password_hash ?? undefined, attempt.password);
  if (!ok || !user) {
    await recordAuthEvent(db, { event: 'sign_in_failed', email, ip, ...context });
    return { outcome: 'refused' };
  }
  await recordAuthEvent(db, { event: 'sign_in', email, userId: user.id, ip, ...context });
  return { outcome: 'signed_in', userId: user.id };
}
