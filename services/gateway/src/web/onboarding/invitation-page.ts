import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { IdentityAdminError } from '../../identity/admin.js';
import { acceptInvitation, type OpenInvitation, openInvitation } from '../../identity/invitations.js';
import { MIN_PASSWORD_LENGTH } from '../../oauth/passwords.js';
import { anonymousForms } from '../people/anonymous-form.js';
import { alertLine, csrfField, esc, when } from '../people/html.js';
import { REFUSED } from '../shell/error-pages.js';
import type { WebShell } from '../shell/web-shell.js';

type Params = { Params: { token: string } };

const GONE = {
  title: 'Invitation not valid',
  message:
    'This invitation link is not valid any more: it was used, revoked or has expired. Ask your admin for a new one.',
};

/**
 * GET and POST /app/invite/:token — the invitee's page: who invited them into which organization,
 * and the form that accepts (a name and a password; an existing account enters its own). Used,
 * revoked, expired and unknown links get the same answer. Success signs the person in and opens
 * the connect page.
 */
export function registerInvitationPage(scope: FastifyInstance, shell: WebShell): void {
  const forms = anonymousForms(shell, 'invite', '/app/invite');

  const form = (
    request: FastifyRequest<Params>,
    reply: FastifyReply,
    status: number,
    invitation: OpenInvitation,
    error?: string,
  ) =>
    shell.page(request, reply, status, {
      title: 'Join Quarry',
      body: `<h1>Join ${esc(invitation.orgName)} on Quarry</h1>
<p>You are invited as ${esc(invitation.role)} with the email <strong>${esc(invitation.email)}</strong>. The link works until ${when(invitation.expiresAt)}.</p>
${alertLine(error)}
<form method="post" action="/app/invite/${encodeURIComponent(request.params.token)}">
${csrfField(forms.issue(reply))}
<label for="name">Your name</label>
<input id="name" name="name" type="text" autocomplete="name">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}" aria-describedby="password-help">
<p id="password-help" class="muted">At least ${MIN_PASSWORD_LENGTH} characters. If you already have a Quarry account with this email, enter its password.</p>
<button type="submit">Join</button>
</form>`,
    });

  scope.get<Params>('/invite/:token', { config: { anonymous: true } }, async (request, reply) => {
    const invitation = await openInvitation(shell.db, request.params.token);
    if (!invitation) return shell.message(request, reply, 404, GONE.title, GONE.message);
    return form(request, reply, 200, invitation);
  });

  scope.post<Params>('/invite/:token', { config: { anonymous: true } }, async (request, reply) => {
    if (!forms.accepts(request)) return shell.message(request, reply, 403, REFUSED.title, REFUSED.message);
    const body = (request.body ?? {}) as Record<string, string | undefined>;
    try {
      const joined = await acceptInvitation(shell.db, {
        token: request.params.token,
        name: body.name ?? '',
        password: body.password ?? '',
        ip: request.ip,
      });
      reply.header('set-cookie', shell.sessions.cookieFor(joined.userId));
      reply.header('set-cookie', shell.orgCookie(joined.orgSlug));
      return reply.redirect('/app/connect', 303);
    } catch (error) {
      if (!(error instanceof IdentityAdminError)) throw error;
      const invitation = await openInvitation(shell.db, request.params.token);
      if (error.code === 'NOT_FOUND' || !invitation)
        return shell.message(request, reply, 404, GONE.title, GONE.message);
      return form(request, reply, error.code === 'PERMISSION_DENIED' ? 403 : 400, invitation, error.message);
    }
  });
}
