import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml } from '../../http/html-document.js';
import { needsFirstRun } from '../../identity/first-run.js';
import { signInWithPassword } from '../../oauth/password-sign-in.js';
import { REFUSED } from './error-pages.js';
import { cookieValue } from './session.js';
import type { WebShell } from './web-shell.js';

export interface SignInLimits {
  /** Failed sign-ins allowed per email (ten times that per address) within `failureWindowMs`, as on the OAuth sign-in. */
  maxFailures?: number;
  failureWindowMs?: number;
}

const NONCE_COOKIE = 'quarry_sign_in';
// Where a sign-in may send the person back: a page of the app (a path, never another site).
const NEXT = /^\/app(\/[A-Za-z0-9._~!$&'()*+,;=:@%/?-]{0,2000})?$/;

type Form = Record<string, string | undefined>;

/**
 * GET and POST /app/sign-in, POST /app/sign-out: the app's password sign-in, for a person whose
 * browser holds no session (one who connected an app in this browser has one already); while
 * Quarry has no organization, the sign-in page leads to the first-run setup. The same
 * checks as the OAuth sign-in (argon2 passwords, the failure limits, the audit log); the form's
 * token is bound to a nonce cookie, since there is no session yet. Success sets the session
 * cookie and goes back to the page asked for.
 */
export function registerSignIn(scope: FastifyInstance, shell: WebShell, limits: SignInLimits = {}): void {
  const maxFailures = limits.maxFailures ?? 5;
  const windowMs = limits.failureWindowMs ?? 15 * 60_000;
  const nextOf = (value: unknown) =>
    typeof value === 'string' && NEXT.test(value) && !value.includes('//') ? value : '/app/plans';

  function form(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    next: string,
    extra: { email?: string; error?: string } = {},
  ) {
    const nonce = randomBytes(18).toString('base64url');
    reply.header(
      'set-cookie',
      `${NONCE_COOKIE}=${nonce}; Path=/app/sign-in; Max-Age=1800; HttpOnly; SameSite=Lax${shell.secure ? '; Secure' : ''}`,
    );
    return shell.page(request, reply, status, {
      title: 'Sign in',
      body: signInForm({ csrf: shell.csrf.tokenFor(`sign-in:${nonce}`), next, ...extra }),
    });
  }

  scope.get<{ Querystring: { next?: string } }>('/sign-in', { config: { anonymous: true } }, async (request, reply) =>
    // A new installation has no one to sign in yet: its first person sets it up instead.
    (await needsFirstRun(shell.db))
      ? reply.redirect('/app/setup', 303)
      : form(request, reply, 200, nextOf(request.query.next)),
  );

  scope.post('/sign-in', { config: { anonymous: true } }, async (request, reply) => {
    const body = (request.body ?? {}) as Form;
    const next = nextOf(body.next);
    const nonce = cookieValue(request.headers.cookie, NONCE_COOKIE);
    if (!shell.csrf.accepts(request, nonce && `sign-in:${nonce}`))
      return shell.message(request, reply, 403, REFUSED.title, REFUSED.message);
    const email = (body.email ?? '').trim().toLowerCase();
    const signIn = await signInWithPassword(
      shell.db,
      { email, password: body.password ?? '', ip: request.ip },
      { windowMs, maxFailures },
      { detail: { via: 'app' } },
    );
    if (signIn.outcome === 'throttled')
      return form(request, reply, 429, next, {
        email,
        error: 'Too many failed sign-ins. Wait a few minutes, then try again.',
      });
    if (signIn.outcome === 'refused')
      return form(request, reply, 401, next, { email, error: 'The email or password is not correct.' });
    reply.header('set-cookie', shell.sessions.cookieFor(signIn.userId));
    return reply.redirect(next, 303);
  });

  scope.post('/sign-out', async (request, reply) => {
    reply.header('set-cookie', await shell.sessions.end(request, reply));
    return reply.redirect('/app/sign-in', 303);
  });

  scope.post('/org', async (request, reply) => {
    const slug = ((request.body ?? {}) as Form).org;
    const org = shell.viewer(request).user.orgs.find((o) => o.slug === slug);
    if (org) reply.header('set-cookie', shell.orgCookie(org.slug));
    return reply.redirect('/app/plans', 303);
  });
}

function signInForm(input: { csrf: string; next: string; email?: string; error?: string }): string {
  return `<h1>Sign in to Quarry</h1>
<p>Sign in to open your organization's research.</p>
${input.error ? `<p class="error" role="alert">${escapeHtml(input.error)}</p>` : ''}
<form method="post" action="/app/sign-in">
<input type="hidden" name="csrf" value="${escapeHtml(input.csrf)}">
<input type="hidden" name="next" value="${escapeHtml(input.next)}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(input.email ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`;
}
