import { type Kysely, sql } from 'kysely';
import { recordAuthEvent } from '../oauth/audit.js';
import { createOAuthAdmin } from '../oauth/admin.js';
import { createIdentityAdmin, IdentityAdminError } from './admin.js';
import type { IdentityDatabase } from './schema.js';

/** Serialises concurrent first-run attempts: whichever takes it first creates the organization. */
const FIRST_RUN_LOCK = 0x71_72_79_01;

/** Whether Quarry has no organization yet: the web app then offers its first-run setup. */
export async function needsFirstRun(db: Kysely<IdentityDatabase>): Promise<boolean> {
  const row = await db.selectFrom('identity.organizations').select('id').limit(1).executeTakeFirst();
  return row === undefined;
}

export interface FirstRunInput {
  orgSlug: string;
  orgName: string;
  email: string;
  name: string;
  password: string;
  ip?: string;
}

/**
 * The first organization and its owner, with a sign-in password: only while no organization
 * exists, so the page cannot be used to take over an installation later. Concurrent attempts
 * take an advisory lock; all but the first find an organization and are refused.
 */
export async function completeFirstRun(
  db: Kysely<IdentityDatabase>,
  input: FirstRunInput,
): Promise<{ orgId: string; orgSlug: string; userId: string }> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${FIRST_RUN_LOCK})`.execute(trx);
    if (!(await needsFirstRun(trx)))
      throw new IdentityAdminError('ALREADY_EXISTS', 'Quarry is already set up: sign in instead.');
    const admin = createIdentityAdmin(trx);
    const org = await admin.createOrg({ slug: input.orgSlug, name: input.orgName.trim() || input.orgSlug });
    // The owner's membership is written under the new org's row-level security.
    await sql`select set_config('app.org_id', ${org.id}, true)`.execute(trx);
    const user = await admin.addUser({
      email: input.email,
      orgSlug: org.slug,
      name: input.name.trim() || undefined,
      role: 'owner',
    });
    await createOAuthAdmin(trx).setPassword(user.email, input.password);
    await recordAuthEvent(trx, {
      event: 'first_run_setup',
      email: user.email,
      userId: user.id,
      orgSlug: org.slug,
      ip: input.ip,
    });
    return { orgId: org.id, orgSlug: org.slug, userId: user.id };
  });
}
