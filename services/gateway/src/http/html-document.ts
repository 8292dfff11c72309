// The gateway's people-facing pages (sign-in, consent, OAuth errors, the library) are plain
// server-rendered HTML: one escape for every value they show and one document shell, so the
// accessibility and security basics (language, viewport, no referrer, visible focus) are set once.

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML content and quoted attributes: stored or requested values are untrusted. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** A whole page: `title` (escaped) · Quarry, the page's own CSS, and `body` (already HTML) in <main>. */
export function htmlDocument(title: string, style: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)} · Quarry</title>
<style>
${style}
:focus-visible{outline:3px solid #1a5fb4;outline-offset:2px}
</style>
</head>
<body><main>
${body}
</main></body>
</html>`;
}
