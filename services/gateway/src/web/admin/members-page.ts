import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isAdmin } from '../../identity/member.js';
import { listMembers, removeMember, setMemberRole } from '../../identity/members.js';
import { actionButton, alertLine, csrfField, esc, options, table, when } from '../people/html.js';
import { memberOf } from '../people/member-of.js';
import { adminsOnly, attempt } from '../people/service-errors.js';
import type { WebShell } from '../shell/web-shell.js';

type Params = { Params: { userId: string } };

/**
 * /app/admin/members — the organization's members and their roles (admins): change a role, remove
 * a member (their tokens and connected apps in this organization go with the membership).
 */
export function registerMembersPage(scope: FastifyInstance, shell: WebShell): void {
  async function page(request: FastifyRequest, reply: FastifyReply, status: number, error?: string) {
    const viewer = shell.viewer(request);
    const members = await listMembers(shell.db, memberOf(viewer));
    return shell.page(request, reply, status, {
      title: 'Members',
      body: `<h1>Members of ${esc(viewer.org.name)}</h1>
${alertLine(error)}
<p><a href="/app/admin/invitations">Invite someone</a></p>
${table(
  'Members and roles',
  ['Name', 'Email', 'Role', 'Joined', ''],
  members.map((m) => [
    esc(m.name),
    esc(m.email),
    `<form method="post" action="/app/admin/members/${esc(m.userId)}/role" class="actions">${csrfField(viewer.csrf)}<label class="inline" for="role-${esc(m.userId)}">Role of ${esc(m.email)}</label> <select id="role-${esc(m.userId)}" name="role">${options(['owner', 'admin', 'member'], m.role)}</select> <button type="submit" class="secondary small">Change</button></form>`,
    when(m.joinedAt),
    actionButton(`/app/admin/members/${m.userId}/remove`, viewer.csrf, 'Remove', `Remove ${m.email}`, true),
  ]),
  'No members.',
)}`,
    });
  }

  scope.get('/admin/members', async (request, reply) =>
    isAdmin(memberOf(shell.viewer(request))) ? page(request, reply, 200) : adminsOnly(shell, request, reply),
  );

  scope.post<Params>('/admin/members/:userId/role', async (request, reply) => {
    const role = ((request.body ?? {}) as Record<string, string | undefined>).role ?? '';
    const result = await attempt(shell, request, reply, () =>
      setMemberRole(shell.db, memberOf(shell.viewer(request)), { userId: request.params.userId, role }),
    );
    if (!result.ok) return 'sent' in result ? result.sent : page(request, reply, 400, result.message);
    return reply.redirect('/app/admin/members', 303);
  });

  scope.post<Params>('/admin/members/:userId/remove', async (request, reply) => {
    const result = await attempt(shell, request, reply, () =>
      removeMember(shell.db, memberOf(shell.viewer(request)), request.params.userId),
    );
    if (!result.ok) return 'sent' in result ? result.sent : page(request, reply, 400, result.message);
    return reply.redirect('/app/admin/members', 303);
  });
}
