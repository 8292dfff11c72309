import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { toolCatalogue } from '@quarry/contracts';
import type { CreatedToken } from '../../identity/admin.js';
import { isAdmin } from '../../identity/member.js';
import { createOwnToken, listOwnTokens, revokeOwnToken } from '../../identity/personal-tokens.js';
import { actionButton, alertLine, copyable, csrfField, esc, options, table, when } from '../people/html.js';
import { memberOf } from '../people/member-of.js';
import { attempt } from '../people/service-errors.js';
import type { WebShell } from '../shell/web-shell.js';

const TOOL_NAMES = toolCatalogue.map((t) => t.name).sort();
const EXPIRIES: Record<string, number | undefined> = { '30': 30, '90': 90, '365': 365, never: undefined };

type Form = Record<string, string | undefined>;
// One field per choice (scope:…, tool:…): the app's form parser keeps one value per name.
const chosen = (body: Form, prefix: string) =>
  Object.keys(body)
    .filter((key) => key.startsWith(prefix) && body[key] === 'on')
    .map((key) => key.slice(prefix.length));

/**
 * /app/preferences/tokens — the person's own personal access tokens: create one with scopes and,
 * optionally, the only tools it may call (its value is shown once, right after), and revoke.
 */
export function registerTokensPage(scope: FastifyInstance, shell: WebShell): void {
  async function page(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    extra: { created?: CreatedToken; error?: string } = {},
  ) {
    const viewer = shell.viewer(request);
    const member = memberOf(viewer);
    const tokens = await listOwnTokens(shell.db, member);
    const scopes = ['quarry:read', 'quarry:write', ...(isAdmin(member) ? ['quarry:admin'] : [])];
    const state = (t: (typeof tokens)[number]) =>
      t.revokedAt
        ? `revoked ${when(t.revokedAt)}`
        : t.expiresAt && t.expiresAt.getTime() <= Date.now()
          ? 'expired'
          : t.expiresAt
            ? `until ${when(t.expiresAt)}`
            : 'no expiry';
    const created = extra.created
      ? `<section class="notice" aria-labelledby="new-token"><h2 id="new-token">Your new token</h2>
<p>Copy it now: it is shown only once, and Quarry keeps only its hash.</p>
${copyable('new-token-value', 'Token', extra.created.token)}
${copyable('new-token-command', 'Claude Code with this token', `claude mcp add --transport http quarry ${shell.origin}/mcp --header "Authorization: Bearer ${extra.created.token}"`)}</section>`
      : '';
    return shell.page(request, reply, status, {
      title: 'Personal access tokens',
      scripts: ['copy-button.js'],
      body: `<h1>Personal access tokens</h1>
<p>A token lets a program call Quarry as you, in ${esc(viewer.org.name)}, without signing in.</p>
${created}${alertLine(extra.error)}
<form method="post" action="/app/preferences/tokens">
${csrfField(viewer.csrf)}
<label for="token-name">What it is for</label>
<input id="token-name" name="name" type="text" required maxlength="200">
<fieldset><legend>Scopes</legend>
${scopes.map((s) => `<label class="inline"><input type="checkbox" name="scope:${esc(s)}"${s === 'quarry:admin' ? '' : ' checked'}> ${esc(s)}</label>`).join('\n')}
</fieldset>
<details><summary>Only some tools (none chosen: every tool its scopes allow)</summary>
<fieldset><legend>Tools</legend>
${TOOL_NAMES.map((t) => `<label class="inline"><input type="checkbox" name="tool:${esc(t)}"> ${esc(t)}</label>`).join('\n')}
</fieldset></details>
<label for="token-expiry">Expires</label>
<select id="token-expiry" name="expiry">${options(Object.keys(EXPIRIES), '90', { '30': 'in 30 days', '90': 'in 90 days', '365': 'in a year', never: 'never' })}</select>
<button type="submit">Create token</button>
</form>
<h2>Your tokens</h2>
${table(
  'Your personal access tokens',
  ['Name', 'Token', 'Scopes', 'Tools', 'Created', 'Last used', 'State', ''],
  tokens.map((t) => [
    esc(t.name),
    `<code>${esc(t.hint)}</code>`,
    esc(t.scopes.join(' ')),
    esc(t.tools?.join(', ') ?? 'all'),
    when(t.createdAt),
    when(t.lastUsedAt, 'never'),
    state(t),
    t.revokedAt
      ? ''
      : actionButton(
          `/app/preferences/tokens/${t.id}/revoke`,
          viewer.csrf,
          'Revoke',
          `Revoke the token ${t.name}`,
          true,
        ),
  ]),
  'You have no tokens.',
)}`,
    });
  }

  scope.get('/preferences/tokens', async (request, reply) => page(request, reply, 200));

  scope.post('/preferences/tokens', async (request, reply) => {
    const body = (request.body ?? {}) as Form;
    const tools = chosen(body, 'tool:');
    const expiry = body.expiry !== undefined && body.expiry in EXPIRIES ? EXPIRIES[body.expiry] : 90;
    const result = await attempt(shell, request, reply, () =>
      createOwnToken(shell.db, memberOf(shell.viewer(request)), {
        name: body.name ?? '',
        scopes: chosen(body, 'scope:'),
        tools: tools.length > 0 ? tools : undefined,
        expiresInMs: expiry === undefined ? undefined : expiry * 86_400_000,
      }),
    );
    if (!result.ok) return 'sent' in result ? result.sent : page(request, reply, 400, { error: result.message });
    return page(request, reply, 201, { created: result.value });
  });

  scope.post<{ Params: { id: string } }>('/preferences/tokens/:id/revoke', async (request, reply) => {
    const result = await attempt(shell, request, reply, () =>
      revokeOwnToken(shell.db, memberOf(shell.viewer(request)), request.params.id),
    );
    if (!result.ok) return 'sent' in result ? result.sent : page(request, reply, 400, { error: result.message });
    return reply.redirect('/app/preferences/tokens', 303);
  });
}
