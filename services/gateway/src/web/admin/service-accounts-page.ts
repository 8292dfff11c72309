import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isAdmin } from '../../identity/member.js';
import { orgServiceAccounts } from '../../identity/org-service-accounts.js';
import type { IssuedServiceAccount } from '../../identity/service-accounts.js';
import { actionButton, alertLine, copyable, csrfField, esc, table, when } from '../people/html.js';
import { memberOf } from '../people/member-of.js';
import { adminsOnly, attempt } from '../people/service-errors.js';
import type { WebShell } from '../shell/web-shell.js';

type Params = { Params: { clientId: string } };
type Form = Record<string, string | undefined>;

/**
 * /app/admin/service-accounts — programs of the organization that call the services directly
 * (admins): create one with scopes, rotate its secret, revoke it. A secret is shown once.
 */
export function registerServiceAccountsPage(scope: FastifyInstance, shell: WebShell): void {
  async function page(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    extra: { issued?: IssuedServiceAccount; error?: string } = {},
  ) {
    const viewer = shell.viewer(request);
    const accounts = await orgServiceAccounts.list(shell.db, memberOf(viewer), true);
    const issued = extra.issued
      ? `<section class="notice" aria-labelledby="new-secret"><h2 id="new-secret">Secret of ${esc(extra.issued.name)}</h2>
<p>Copy the secret now: it is shown only once.</p>
${copyable('sa-client-id', 'Client id', extra.issued.clientId)}
${copyable('sa-secret', 'Client secret', extra.issued.clientSecret)}</section>`
      : '';
    return shell.page(request, reply, status, {
      title: 'Service accounts',
      scripts: ['copy-button.js'],
      body: `<h1>Service accounts</h1>
${issued}${alertLine(extra.error)}
<form method="post" action="/app/admin/service-accounts">
${csrfField(viewer.csrf)}
<label for="sa-name">Name</label>
<input id="sa-name" name="name" type="text" required pattern="[a-z0-9][a-z0-9._\\-]{0,62}" aria-describedby="sa-help">
<p id="sa-help" class="muted">Lowercase letters, digits, dots, dashes or underscores.</p>
<fieldset><legend>Scopes</legend>
${['quarry:read', 'quarry:write', 'quarry:admin'].map((s) => `<label class="inline"><input type="checkbox" name="scope:${s}"${s === 'quarry:read' ? ' checked' : ''}> ${s}</label>`).join('\n')}
</fieldset>
<button type="submit">Create service account</button>
</form>
<h2>Accounts</h2>
${table(
  'Service accounts of this organization',
  ['Name', 'Client id', 'Secret', 'Scopes', 'Created', 'State', ''],
  accounts.map((a) => [
    esc(a.name),
    `<code>${esc(a.clientId)}</code>`,
    `<code>${esc(a.secretHint)}</code>`,
    esc(a.scopes.join(' ')),
    when(a.createdAt),
    a.revokedAt ? `revoked ${when(a.revokedAt)}` : 'active',
    a.revokedAt
      ? ''
      : `<div class="actions">${actionButton(`/app/admin/service-accounts/${a.clientId}/rotate`, viewer.csrf, 'Rotate secret', `Rotate the secret of ${a.name}`)}${actionButton(`/app/admin/service-accounts/${a.clientId}/revoke`, viewer.csrf, 'Revoke', `Revoke ${a.name}`, true)}</div>`,
  ]),
  'No service accounts.',
)}`,
    });
  }

  scope.get('/admin/service-accounts', async (request, reply) =>
    isAdmin(memberOf(shell.viewer(request))) ? page(request, reply, 200) : adminsOnly(shell, request, reply),
  );

  scope.post('/admin/service-accounts', async (request, reply) => {
    const body = (request.body ?? {}) as Form;
    const scopes = Object.keys(body)
      .filter((k) => k.startsWith('scope:') && body[k] === 'on')
      .map((k) => k.slice('scope:'.length))
      .join(',');
    const result = await attempt(shell, request, reply, () =>
      orgServiceAccounts.create(shell.db, memberOf(shell.viewer(request)), { name: body.name ?? '', scopes }),
    );
    if (!result.ok) return 'sent' in result ? result.sent : page(request, reply, 400, { error: result.message });
    return page(request, reply, 201, { issued: result.value });
  });

  scope.post<Params>('/admin/service-accounts/:clientId/rotate', async (request, reply) => {
    const result = await attempt(shell, request, reply, () =>
      orgServiceAccounts.rotateSecret(shell.db, memberOf(shell.viewer(request)), request.params.clientId),
    );
    if (!result.ok) return 'sent' in result ? result.sent : page(request, reply, 400, { error: result.message });
    return page(request, reply, 200, { issued: result.value });
  });

  scope.post<Params>('/admin/service-accounts/:clientId/revoke', async (request, reply) => {
    const result = await attempt(shell, request, reply, () =>
      orgServiceAccounts.revoke(shell.db, memberOf(shell.viewer(request)), request.params.clientId),
    );
    if (!result.ok) return 'sent' in result ? result.sent : page(request, reply, 400, { error: result.message });
    return reply.redirect('/app/admin/service-accounts', 303);
  });
}
