import type { FastifyInstance } from 'fastify';
import { isAdmin } from '../../identity/member.js';
import { isOperatorAdmin } from '../../operations/operator-org.js';
import { esc } from '../people/html.js';
import { memberOf } from '../people/member-of.js';
import { adminsOnly } from '../people/service-errors.js';
import type { WebShell } from '../shell/web-shell.js';

const PAGES = [
  { href: '/app/admin/members', label: 'Members and roles' },
  { href: '/app/admin/invitations', label: 'Invitations' },
  { href: '/app/admin/service-accounts', label: 'Service accounts' },
  { href: '/app/admin/oauth-clients', label: 'OAuth clients' },
  { href: '/app/admin/audit', label: 'Audit log' },
  { href: '/app/admin/tool-calls', label: 'Tool calls' },
  { href: '/app/admin/usage', label: 'Usage' },
];

/** GET /app/admin — the admin pages of the organization (and operations, for the operator's admins). */
export function registerAdminHome(scope: FastifyInstance, shell: WebShell, operatorOrg: string | undefined): void {
  scope.get('/admin', async (request, reply) => {
    const viewer = shell.viewer(request);
    const member = memberOf(viewer);
    if (!isAdmin(member)) return adminsOnly(shell, request, reply);
    const operations = (await isOperatorAdmin(shell.db, member, operatorOrg))
      ? [{ href: '/app/operations', label: 'Operations (every organization)' }]
      : [];
    return shell.page(request, reply, 200, {
      title: 'Admin',
      body: `<h1>Admin of ${esc(viewer.org.name)}</h1>
<ul class="plain">${[...PAGES, ...operations].map((p) => `<li><a href="${p.href}">${esc(p.label)}</a></li>`).join('')}</ul>`,
    });
  });
}
