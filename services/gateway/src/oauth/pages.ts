import type { ErrorExplanation } from './error-explanations.js';
import { escapeHtml, htmlDocument } from '../http/html-document.js';

/** Server-rendered sign-in, consent and error pages: plain HTML forms, no script, labelled fields. */

/**
 * The headers of every page: no caching, no framing, no script. Forms go only here, and the
 * redirects that follow them to the client: any http(s) address, or the private-use scheme of a
 * native client's `redirectUri` (browsers apply `form-action` to those redirects too).
 */
export function pageHeaders(redirectUri?: string) {
  const scheme = redirectUri ? URL.parse(redirectUri)?.protocol : undefined;
  const clientScheme = scheme && scheme !== 'http:' && scheme !== 'https:' ? ` ${scheme}` : '';
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'x-frame-options': 'DENY',
    'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http: https:${clientScheme}; frame-ancestors 'none'`,
  };
}

const SCOPE_TEXT: Record<string, string> = {
  'quarry:read': 'Read your research plans, artifacts and search results',
  'quarry:write': 'Create and change research plans and artifacts',
  'quarry:admin': 'Administer the organization',
};

const STYLE = `body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;line-height:1.5;color:#1a1a1a}
label{display:block;margin-top:1rem;font-weight:600}
input[type=email],input[type=password]{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}
button{margin-top:1.5rem;margin-right:.5rem;padding:.5rem 1.25rem;font-size:1rem}
.error{color:#a00000;border:1px solid #a00000;padding:.5rem}
.details{margin-top:2rem;font-size:.875rem;color:#444;overflow-wrap:anywhere}
fieldset{margin-top:1rem}`;

function layout(title: string, body: string): string {
  return htmlDocument(title, STYLE, body);
}

const errorBox = (error?: string) => (error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : '');

export function loginPage(input: {
  action: string;
  csrf: string;
  clientName: string;
  email?: string;
  error?: string;
  /** The upstream identity provider's sign-in link, when single sign-on is configured. */
  sso?: { name: string; href: string };
}) {
  return layout(
    'Sign in',
    `<h1>Sign in to Quarry</h1>
<p><strong>${escapeHtml(input.clientName)}</strong> wants to connect to your Quarry account.</p>
${errorBox(input.error)}
<form method="post" action="${escapeHtml(input.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(input.csrf)}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(input.email ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>${input.sso ? `\n<p><a href="${escapeHtml(input.sso.href)}">Sign in with ${escapeHtml(input.sso.name)}</a></p>` : ''}`,
  );
}

export function consentPage(input: {
  action: string;
  csrf: string;
  clientName: string;
  redirectHost: string;
  scopes: readonly string[];
  orgs: ReadonlyArray<{ id: string; slug: string; name: string }>;
  email: string;
  error?: string;
}) {
  const orgs =
    input.orgs.length === 1
      ? `<p>Organization: <strong>${escapeHtml(input.orgs[0]!.name)}</strong> (${escapeHtml(input.orgs[0]!.slug)})</p>
<input type="hidden" name="org" value="${escapeHtml(input.orgs[0]!.id)}">`
      : `<fieldset><legend>Organization to connect</legend>
${input.orgs
  .map(
    (o, i) =>
      `<div><input type="radio" id="org-${i}" name="org" value="${escapeHtml(o.id)}"${i === 0 ? ' checked' : ''}> <label style="display:inline;font-weight:normal" for="org-${i}">${escapeHtml(o.name)} (${escapeHtml(o.slug)})</label></div>`,
  )
  .join('\n')}
</fieldset>`;
  return layout(
    'Allow access',
    `<h1>Allow ${escapeHtml(input.clientName)} to use Quarry?</h1>
${errorBox(input.error)}
<p>Signed in as ${escapeHtml(input.email)}. After you allow it, you are sent back to <strong>${escapeHtml(input.redirectHost)}</strong>.</p>
<h2>It will be able to</h2>
<ul>${input.scopes.map((s) => `<li>${escapeHtml(SCOPE_TEXT[s] ?? s)} <code>${escapeHtml(s)}</code></li>`).join('')}</ul>
<form method="post" action="${escapeHtml(input.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(input.csrf)}">
${orgs}
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

export function errorPage(title: string, message: string) {
  return layout(title, `<h1>${escapeHtml(title)}</h1><p role="alert">${escapeHtml(message)}</p>`);
}

/**
 * An OAuth error as Quarry explains it: what is wrong and what to do, then the error code and
 * the server's description for the app's developer. Every value is escaped; the request's
 * `state` is never shown.
 */
export function oauthErrorPage(explanation: ErrorExplanation, details: { error: string; description?: string }) {
  const description = details.description ? ` — ${escapeHtml(details.description)}` : '';
  return layout(
    explanation.title,
    `<h1>${escapeHtml(explanation.title)}</h1>
<p role="alert">${escapeHtml(explanation.problem)}</p>
<p>${escapeHtml(explanation.remedy)}</p>
<p class="details">Error code <code>${escapeHtml(details.error)}</code>${description}</p>`,
  );
}

/** The sign-out confirmation; `form` is oidc-provider's hidden form (its action and CSRF field). */
export function signOutPage(form: string) {
  return layout(
    'Sign out',
    `<h1>Sign out of Quarry?</h1>
<p>You are signed in to Quarry in this browser. Apps you connected keep their access until you revoke it.</p>
${form}
<button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button>
<button type="submit" form="op.logoutForm">Stay signed in</button>`,
  );
}

export function signedOutPage() {
  return layout(
    'Signed out',
    '<h1>You are signed out of Quarry</h1><p>You can close this window, or go back to your app.</p>',
  );
}
