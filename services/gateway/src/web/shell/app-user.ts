import { type Kysely, sql } from 'kysely';
import type { IdentityDatabase, Principal } from '../../identity/schema.js';
import type { BrowserSession } from './session.js';

type Role = 'owner' | 'admin' | 'member';

/** One organization a signed-in person belongs to, and their role in it. */
export interface AppOrg {
  id: string;
  slug: string;
  name: string;
  role: Role;
}

/** The person behind a browser session, with every organization they belong to. */
export interface AppUser {
  sessionId: string;
  userId: string;
  email: string;
  name: string;
  /** Ordered by slug; never empty (a person without one is not signed in to the app). */
  orgs: readonly AppOrg[];
}

/** The person of a session and their memberships (row-level security as that person); undefined without any. */
export async function loadAppUser(db: Kysely<IdentityDatabase>, session: BrowserSession): Promise<AppUser | undefined> {
  const rows = await db.transaction().execute(async (trx) => {
    await sql`select set_config('app.user_id', ${session.userId}, true)`.execute(trx);
    return trx
      .selectFrom('identity.memberships as m')
      .innerJoin('identity.organizations as o', 'o.id', 'm.org_id')
      .innerJoin('identity.users as u', 'u.id', 'm.user_id')
      .select(['o.id', 'o.slug', 'o.name', 'm.role', 'u.email', 'u.name as userName'])
      .where('m.user_id', '=', session.userId)
      .orderBy('o.slug')
      .execute();
  });
  const first = rows[0];
  if (!first) return undefined;
  return {
    sessionId: session.sessionId,
    userId: session.userId,
    email: first.email,
    name: first.userName,
    orgs: rows.map(({ id, slug, name, role }) => ({ id, slug, name, role })),
  };
}

/**
 * The person acting in `org` through the app: the principal every tool call from a page carries,
 * so the services apply the same row-level security, scopes and audit as to a token. The browser
 * session's id stands for the token in the tool-call log; an admin or owner gets `quarry:admin`,
 * as at OAuth consent, and the services check roles as for any call.
 */
export function principalOf(user: AppUser, org: AppOrg): Principal {
  return {
    tokenId: user.sessionId,
    orgId: org.id,
    orgSlug: org.slug,
    userId: user.userId,
    email: user.email,
    name: user.name,
    expiresAt: null,
    scopes: org.role === 'member' ? ['quarry:read', 'quarry:write'] : ['quarry:read', 'quarry:write', 'quarry:admin'],
    tools: null,
  };
}
