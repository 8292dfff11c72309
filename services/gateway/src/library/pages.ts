import type { FastifyReply } from 'fastify';
import { escapeHtml, htmlDocument } from '../http/html-document.js';

// The library's pages: server-rendered HTML without script, every stored value escaped (what a
// model stored is untrusted), served with a CSP that allows no script, frame or external load.

/** Sends a page: HTML, never cached (it is one person's data), never framed, no script. */
export function sendPage(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply
    .code(status)
    .headers({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'content-security-policy':
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    })
    .send(html);
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1a1a1a}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f6f6;padding:1rem;font-size:.95rem}
dt{font-weight:600}dd{margin:0 0 .5rem}
label{display:block;margin-top:1rem;font-weight:600}
input[type=email],input[type=password]{width:100%;max-width:28rem;padding:.5rem;font-size:1rem;box-sizing:border-box}
button{margin-top:1.5rem;padding:.5rem 1.25rem;font-size:1rem}
.error{color:#a00000;border:1px solid #a00000;padding:.5rem}`;

function layout(title: string, body: string): string {
  return htmlDocument(title, STYLE, body);
}

/** Metadata the page does not show: how the text was paged. */
const PAGING = new Set(['next_cursor', 'offset', 'total_bytes']);

/** A stored item as fetch reads it: title, what else is known, its text (this page of it), and a link to the next page. */
export function itemPage(item: {
  title: string;
  text: string;
  metadata: Record<string, string>;
  nextPage?: string;
}): string {
  const known = Object.entries(item.metadata).filter(([key]) => !PAGING.has(key));
  return layout(
    item.title,
    `<h1>${escapeHtml(item.title)}</h1>
<dl>${known.map(([key, value]) => `<dt>${escapeHtml(key.replace(/_/g, ' '))}</dt><dd>${escapeHtml(value)}</dd>`).join('')}</dl>
<pre>${escapeHtml(item.text)}</pre>${item.nextPage ? `\n<p><a href="${escapeHtml(item.nextPage)}" rel="next">Next page</a></p>` : ''}`,
  );
}

/** The same answer for a missing item, another organization's and a malformed address. */
export function notFoundPage(): string {
  return layout(
    'Not found',
    '<h1>Not found</h1><p role="alert">Nothing in your organizations is stored under this link.</p>',
  );
}

export function messagePage(title: string, message: string): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1><p role="alert">${escapeHtml(message)}</p>`);
}

export function signInPage(input: { csrf: string; next: string; email?: string; error?: string }): string {
  return layout(
    'Sign in',
    `<h1>Sign in to Quarry</h1>
<p>Sign in to open what your organization stored.</p>
${input.error ? `<p class="error" role="alert">${escapeHtml(input.error)}</p>` : ''}
<form method="post" action="/library/sign-in">
<input type="hidden" name="csrf" value="${escapeHtml(input.csrf)}">
<input type="hidden" name="next" value="${escapeHtml(input.next)}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(input.email ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`,
  );
}
