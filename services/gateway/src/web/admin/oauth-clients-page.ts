import type { FastifyInstance } from 'fastify';
import { isAdmin } from '../../identity/member.js';
import { listOrgOAuthClients, revokeOrgOAuthClient } from '../../identity/org-oauth-clients.js';
import { actionButton, esc, table, when } from '../people/html.js';
import { memberOf } from '../people/member-of.js';
import { adminsOnly, attempt } from '../people/service-errors.js';
import type { WebShell } from '../shell/web-shell.js';

/**
 * /app/admin/oauth-clients — the OAuth clients (Claude, ChatGPT, editors…) the organization's
 * members connected (admins); revoking one disconnects it for every member of this organization.
 */
export function registerOAuthClientsPage(scope: FastifyInstance, shell: WebShell): void {
  scope.get('/admin/oauth-clients', async (request, reply) => {
    const viewer = shell.viewer(request);
    const member = memberOf(viewer);
    if (!isAdmin(member)) return adminsOnly(shell, request, reply);
    const clients = await listOrgOAuthClients(shell.db, member);
    return shell.page(request, reply, 200, {
      title: 'OAuth clients',
      body: `<h1>OAuth clients</h1>
<p>Apps the members of ${esc(viewer.org.name)} connected to Quarry.</p>
${table(
  'OAuth clients connected in this organization',
  ['Client', 'Members connected', 'First connected', 'Last used', ''],
  clients.map((c) => [
    `${esc(c.clientName ?? c.clientId)}<br><span class="muted">${esc(c.clientId)}</span>`,
    esc(c.activeGrants),
    when(c.firstConnectedAt),
    when(c.lastUsedAt, 'never'),
    c.activeGrants > 0
      ? actionButton(
          `/app/admin/oauth-clients/${encodeURIComponent(c.clientId)}/revoke`,
          viewer.csrf,
          'Disconnect everyone',
          `Disconnect ${c.clientName ?? c.clientId} for every member`,
          true,
        )
      : '',
  ]),
  'No member has connected an app yet.',
)}`,
    });
  });

  scope.post<{ Params: { clientId: string } }>('/admin/oauth-clients/:clientId/revoke', async (request, reply) => {
    const result = await attempt(shell, request, reply, () =>
      revokeOrgOAuthClient(shell.db, memberOf(shell.viewer(request)), request.params.clientId),
    );
    if (!result.ok)
      return 'sent' in result ? result.sent : shell.message(request, reply, 400, 'Not done', result.message);
    return reply.redirect('/app/admin/oauth-clients', 303);
  });
}
