import type { FastifyReply, FastifyRequest } from 'fastify';
import { IdentityAdminError } from '../../identity/admin.js';
import type { WebShell } from '../shell/web-shell.js';

/**
 * Runs a people service call for a page. A missing item (another organization's included) is the
 * app's one 404 page; a member asking for an admin action is refused with a 403 page. Mistakes in
 * the form (INVALID_ARGUMENT, ALREADY_EXISTS) are returned for the page to show beside the form.
 */
export async function attempt<T>(
  shell: WebShell,
  request: FastifyRequest,
  reply: FastifyReply,
  run: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; message: string } | { ok: false; sent: FastifyReply }> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    if (!(error instanceof IdentityAdminError)) throw error;
    if (error.code === 'NOT_FOUND') return { ok: false, sent: shell.notFound(request, reply) };
    if (error.code === 'PERMISSION_DENIED')
      return { ok: false, sent: shell.message(request, reply, 403, 'Not allowed', error.message) };
    return { ok: false, message: error.message };
  }
}

/** The 403 page of an admin page opened by a member. */
export const adminsOnly = (shell: WebShell, request: FastifyRequest, reply: FastifyReply): FastifyReply =>
  shell.message(request, reply, 403, 'Not allowed', 'Only owners and admins of the organization may open this page.');
