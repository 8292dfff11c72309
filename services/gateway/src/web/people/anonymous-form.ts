import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { cookieValue } from '../shell/session.js';
import type { WebShell } from '../shell/web-shell.js';

/**
 * Form tokens for the pages a person opens before having a session (first-run setup, accepting an
 * invitation), as the shell's sign-in does: the token is bound to a nonce cookie scoped to the
 * page's path, so a form posted from another site carries no valid token.
 */
export function anonymousForms(shell: WebShell, purpose: string, cookiePath: string) {
  const cookie = `quarry_${purpose}`;
  return {
    /** A fresh nonce cookie on the reply, and the form token bound to it. */
    issue(reply: FastifyReply): string {
      const nonce = randomBytes(18).toString('base64url');
      reply.header(
        'set-cookie',
        `${cookie}=${nonce}; Path=${cookiePath}; Max-Age=1800; HttpOnly; SameSite=Strict${shell.secure ? '; Secure' : ''}`,
      );
      return shell.csrf.tokenFor(`${purpose}:${nonce}`);
    },
    accepts(request: FastifyRequest): boolean {
      const nonce = cookieValue(request.headers.cookie, cookie);
      return shell.csrf.accepts(request, nonce && `${purpose}:${nonce}`);
    },
  };
}
