import type { Member } from '../../identity/member.js';
import type { Viewer } from '../shell/web-shell.js';

/** The page's viewer as the people services take them: a person acting in one organization. */
export function memberOf(viewer: Viewer): Member {
  return {
    orgId: viewer.org.id,
    orgSlug: viewer.org.slug,
    orgName: viewer.org.name,
    userId: viewer.user.userId,
    email: viewer.user.email,
    name: viewer.user.name,
    role: viewer.org.role,
  };
}
