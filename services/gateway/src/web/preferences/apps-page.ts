import type { FastifyInstance } from 'fastify';
import { listConnectedApps, revokeConnectedApp } from '../../identity/connected-apps.js';
import { actionButton, esc, table, when } from '../people/html.js';
import { memberOf } from '../people/member-of.js';
import { attempt } from '../people/service-errors.js';
import type { WebShell } from '../shell/web-shell.js';

/**
 * /app/preferences/apps — the apps the person connected with OAuth in this organization: which
 * client, since when, its scopes and tools, when it last called Quarry; disconnecting one revokes
 * its grant, and its tokens stop working from the next request on.
 */
export function registerAppsPage(scope: FastifyInstance, shell: WebShell): void {
  scope.get('/preferences/apps', async (request, reply) => {
    const viewer = shell.viewer(request);
    const apps = await listConnectedApps(shell.db, memberOf(viewer));
    return shell.page(request, reply, 200, {
      title: 'Connected apps',
      body: `<h1>Connected apps</h1>
<p>Apps you signed in to Quarry from, in ${esc(viewer.org.name)}. <a href="/app/connect">Connect another client</a>.</p>
${table(
  'Your connected apps',
  ['App', 'Scopes', 'Tools', 'Connected', 'Last used', ''],
  apps.map((a) => [
    `${esc(a.clientName ?? a.clientId)}<br><span class="muted">${esc(a.clientId)}</span>`,
    esc(a.scopes.join(' ')),
    esc(a.tools?.join(', ') ?? 'all'),
    when(a.connectedAt),
    when(a.lastUsedAt, 'never'),
    actionButton(
      `/app/preferences/apps/${a.id}/revoke`,
      viewer.csrf,
      'Disconnect',
      `Disconnect ${a.clientName ?? a.clientId}`,
      true,
    ),
  ]),
  'You have not connected any app yet.',
)}`,
    });
  });

  scope.post<{ Params: { id: string } }>('/preferences/apps/:id/revoke', async (request, reply) => {
    const result = await attempt(shell, request, reply, () =>
      revokeConnectedApp(shell.db, memberOf(shell.viewer(request)), request.params.id),
    );
    if (!result.ok)
      return 'sent' in result ? result.sent : shell.message(request, reply, 400, 'Not done', result.message);
    return reply.redirect('/app/preferences/apps', 303);
  });
}
