import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isAdmin } from '../../identity/member.js';
import {
  type CreatedInvitation,
  createInvitation,
  listInvitations,
  revokeInvitation,
} from '../../identity/invitations.js';
import { actionButton, alertLine, copyable, csrfField, esc, options, table, when } from '../people/html.js';
import { memberOf } from '../people/member-of.js';
import { adminsOnly, attempt } from '../people/service-errors.js';
import type { WebShell } from '../shell/web-shell.js';

/** Sends an invitation link by email; only configured with an SMTP server. */
export interface InvitationMailer {
  send(input: { to: string; orgName: string; link: string; expiresAt: Date }): Promise<void>;
}

type Form = Record<string, string | undefined>;

/**
 * /app/admin/invitations — admins invite people by email with a role. The one-time link is shown
 * to the admin once, right after it is made (and emailed too when SMTP is configured); the list
 * shows each invitation's state, and an open one can be revoked.
 */
export function registerInvitationsPage(scope: FastifyInstance, shell: WebShell, mailer?: InvitationMailer): void {
  async function page(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    extra: { created?: CreatedInvitation; mailed?: boolean; error?: string; values?: Form } = {},
  ) {
    const viewer = shell.viewer(request);
    const invitations = await listInvitations(shell.db, memberOf(viewer));
    const state = (i: (typeof invitations)[number]) =>
      i.acceptedAt
        ? `accepted ${when(i.acceptedAt)}`
        : i.revokedAt
          ? `revoked ${when(i.revokedAt)}`
          : i.expiresAt.getTime() <= Date.now()
            ? 'expired'
            : `open until ${when(i.expiresAt)}`;
    const created = extra.created
      ? `<section class="notice" aria-labelledby="new-link"><h2 id="new-link">Invitation link for ${esc(extra.created.email)}</h2>
<p>${extra.mailed ? 'It was emailed too. ' : ''}This link is shown only now: send it to ${esc(extra.created.email)}. It works once, until ${when(extra.created.expiresAt)}.</p>
${copyable('invitation-link', 'Invitation link', `${shell.origin}/app/invite/${extra.created.token}`)}</section>`
      : '';
    return shell.page(request, reply, status, {
      title: 'Invitations',
      scripts: ['copy-button.js'],
      body: `<h1>Invitations</h1>
${created}
${alertLine(extra.error)}
<form method="post" action="/app/admin/invitations">
${csrfField(viewer.csrf)}
<label for="invite-email">Email</label>
<input id="invite-email" name="email" type="email" required value="${esc(extra.values?.email)}">
<label for="invite-role">Role</label>
<select id="invite-role" name="role">${options(['member', 'admin'], extra.values?.role ?? 'member')}</select>
<button type="submit">Invite</button>
</form>
<h2>Sent invitations</h2>
${table(
  'Invitations of this organization',
  ['Email', 'Role', 'Sent', 'State', ''],
  invitations.map((i) => [
    esc(i.email),
    esc(i.role),
    when(i.createdAt),
    state(i),
    !i.acceptedAt && !i.revokedAt
      ? actionButton(
          `/app/admin/invitations/${i.id}/revoke`,
          viewer.csrf,
          'Revoke',
          `Revoke the invitation of ${i.email}`,
          true,
        )
      : '',
  ]),
  'No invitations yet.',
)}`,
    });
  }

  scope.get('/admin/invitations', async (request, reply) =>
    isAdmin(memberOf(shell.viewer(request))) ? page(request, reply, 200) : adminsOnly(shell, request, reply),
  );

  scope.post('/admin/invitations', async (request, reply) => {
    const body = (request.body ?? {}) as Form;
    const member = memberOf(shell.viewer(request));
    const result = await attempt(shell, request, reply, () =>
      createInvitation(shell.db, member, { email: body.email ?? '', role: body.role ?? 'member' }),
    );
    if (!result.ok)
      return 'sent' in result ? result.sent : page(request, reply, 400, { error: result.message, values: body });
    let mailed = false;
    if (mailer) {
      try {
        await mailer.send({
          to: result.value.email,
          orgName: member.orgName,
          link: `${shell.origin}/app/invite/${result.value.token}`,
          expiresAt: result.value.expiresAt,
        });
        mailed = true;
      } catch (error) {
        request.log.warn({ err: error }, 'the invitation email could not be sent; the admin sees the link');
      }
    }
    return page(request, reply, 201, { created: result.value, mailed });
  });

  scope.post<{ Params: { id: string } }>('/admin/invitations/:id/revoke', async (request, reply) => {
    const result = await attempt(shell, request, reply, () =>
      revokeInvitation(shell.db, memberOf(shell.viewer(request)), request.params.id),
    );
    if (!result.ok) return 'sent' in result ? result.sent : page(request, reply, 400, { error: result.message });
    return reply.redirect('/app/admin/invitations', 303);
  });
}
