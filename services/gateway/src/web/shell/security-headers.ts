import type { FastifyReply } from 'fastify';

/**
 * The app's Content-Security-Policy: scripts and styles only from the app's own assets (no
 * inline script or style, so stored content that slipped through escaping still could not run),
 * no frames of it anywhere, forms only to itself.
 */
const APP_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** Headers of every app response that is one person's data: never cached, framed, sniffed or referred on. */
const PRIVATE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'content-security-policy': APP_CSP,
});

/** Sends an HTML page under the app's headers. */
export function sendHtml(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply
    .code(status)
    .headers({ ...PRIVATE_HEADERS, 'content-type': 'text/html; charset=utf-8' })
    .send(html);
}
