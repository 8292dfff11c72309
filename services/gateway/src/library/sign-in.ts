import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Kysely } from 'kysely';
import type { IdentityDatabase } from '../identity/schema.js';
import { signInWithPassword } from '../oauth/password-sign-in.js';
import { type BrowserSessions, cookieValue } from './browser-session.js';
import { messagePage, sendPage, signInPage } from './pages.js';

export interface SignInOptions {
  db: Kysely<IdentityDatabase>;
  sessions: BrowserSessions;
  /** Signs the form's CSRF token. */
  key: Uint8Array;
  /** The origin a form may be posted from (the public URL's). */
  origin: string;
  secure: boolean;
  /** Failed sign-ins allowed per email (ten times that per address) within `failureWindowMs`, as on the OAuth sign-in. */
  maxFailures?: number;
  failureWindowMs?: number;
}

const NONCE_COOKIE = 'quarry_library_sign_in';
// Where a sign-in may send the person back: a permalink page, with its page cursor.
const NEXT = /^\/library\/(artifact|output|extraction)\/[A-Za-z0-9-]{1,64}(\?cursor=[A-Za-z0-9._~%-]{1,2000})?$/;

type Form = Record<string, string | undefined>;

/**
 * GET and POST /library/sign-in: the password sign-in of the library pages, for a person whose
 * browser holds no session (one who connected an app in this browser has one already). The same
 * checks as the OAuth sign-in (argon2 passwords, the failure limits, the audit log); the form's
 * CSRF token is bound to a nonce cookie and a POST from a foreign Origin is refused. Success sets
 * the library's session cookie and goes back to the page asked for.
 */
export function registerSignIn(app: FastifyInstance, options: SignInOptions): void {
  const maxFailures = options.maxFailures ?? 5;
  const windowMs = options.failureWindowMs ?? 15 * 60_000;
  const csrfFor = (nonce: string) =>
    createHmac('sha256', options.key).update(`library-sign-in:${nonce}`).digest('base64url');
  const nextOf = (value: unknown) => (typeof value === 'string' && NEXT.test(value) ? value : '');

  function form(reply: FastifyReply, status: number, next: string, extra: { email?: string; error?: string } = {}) {
    const nonce = randomBytes(18).toString('base64url');
    reply.header(
      'set-cookie',
      `${NONCE_COOKIE}=${nonce}; Path=/library/sign-in; Max-Age=1800; HttpOnly; SameSite=Lax${options.secure ? '; Secure' : ''}`,
    );
    return sendPage(reply, status, signInPage({ csrf: csrfFor(nonce), next, ...extra }));
  }

  app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) =>
      done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );

    scope.get<{ Querystring: { next?: string } }>('/library/sign-in', async (request, reply) =>
      form(reply, 200, nextOf(request.query.next)),
    );

    scope.post('/library/sign-in', async (request, reply) => {
      const body = (request.body ?? {}) as Form;
      const next = nextOf(body.next);
      const nonce = cookieValue(request.headers.cookie, NONCE_COOKIE) ?? '';
      const expected = Buffer.from(csrfFor(nonce));
      const given = Buffer.from(body.csrf ?? '');
      const origin = request.headers.origin;
      if (
        !nonce ||
        given.length !== expected.length ||
        !timingSafeEqual(given, expected) ||
        (origin !== undefined && origin !== 'null' && origin !== options.origin)
      )
        return sendPage(reply, 403, messagePage('Request refused', 'The form did not come from this page; reload it.'));
      const email = (body.email ?? '').trim().toLowerCase();
      const signIn = await signInWithPassword(
        options.db,
        { email, password: body.password ?? '', ip: request.ip },
        { windowMs, maxFailures },
        { detail: { via: 'library' } },
      );
      if (signIn.outcome === 'throttled')
        return form(reply, 429, next, {
          email,
          error: 'Too many failed sign-ins. Wait a few minutes, then try again.',
        });
      if (signIn.outcome === 'refused')
        return form(reply, 401, next, { email, error: 'The email or password is not correct.' });
      reply.header('set-cookie', options.sessions.cookieFor(signIn.userId));
      if (next) return reply.redirect(next, 303);
      return sendPage(reply, 200, messagePage('Signed in', 'You are signed in: open a Quarry link again.'));
    });
  });
}
