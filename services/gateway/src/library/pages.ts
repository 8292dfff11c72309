import type { FastifyReply } from 'fastify';

// The library's pages: server-rendered HTML without script, every stored value escaped (what a
// model stored is untrusted), served with a CSP that allows no script, frame or external load.

const escape = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

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

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escape(title)} · Quarry</title>
<style>
body{font-family:system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1a1a1a}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f6f6;padding:1rem;font-size:.95rem}
dt{font-weight:600}dd{margin:0 0 .5rem}
label{display:block;margin-top:1rem;font-weight:600}
input[type=email],input[type=password]{width:100%;max-width:28rem;padding:.5rem;font-size:1rem;box-sizing:border-box}
button{margin-top:1.5rem;padding:.5rem 1.25rem;font-size:1rem}
.error{color:#a00000;border:1px solid #a00000;padding:.5rem}
:focus-visible{outline:3px solid #1a5fb4;outline-offset:2px}
</style>
</head>
<body><main>
${body}
</main></body>
</html>`;
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
    `<h1>${escape(item.title)}</h1>
<dl>${known.map(([key, value]) => `<dt>${escape(key.replace(/_/g, ' '))}</dt><dd>${escape(value)}</dd>`).join('')}</dl>
<pre>${escape(item.text)}</pre>${item.nextPage ? `\n<p><a href="${escape(item.nextPage)}" rel="next">Next page</a></p>` : ''}`,
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
  return layout(title, `<h1>${escape(title)}</h1><p role="alert">${escape(message)}</p>`);
}

export function signInPage(input: { csrf: string; next: string; email?: string; error?: string }): string {
  return layout(
    'Sign in',
    `<h1>Sign in to Quarry</h1>
<p>Sign in to open what your organization stored.</p>
${input.error ? `<p class="error" role="alert">${escape(input.error)}</p>` : ''}
<form method="post" action="/library/sign-in">
<input type="hidden" name="csrf" value="${escape(input.csrf)}">
<input type="hidden" name="next" value="${escape(input.next)}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${escape(input.email ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`,
  );
}
