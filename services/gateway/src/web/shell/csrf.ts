import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

/**
 * Synchronizer tokens for the app's forms (OWASP's HMAC-based token pattern): a form's token is
 * an HMAC of what it is bound to (the browser session's id, or the sign-in form's nonce cookie)
 * under the gateway's key, so it needs no server-side store and a token of one session is worth
 * nothing in another. A POST also fails when its Origin is a foreign one.
 */
export interface Csrf {
  tokenFor(binding: string): string;
  /** Whether the request's form token matches `binding` and the request did not come from another origin. */
  accepts(request: FastifyRequest, binding: string | undefined): boolean;
}

export function createCsrf(key: Uint8Array, origin: string): Csrf {
  const tokenFor = (binding: string) => createHmac('sha256', key).update(`app-form:${binding}`).digest('base64url');
  return {
    tokenFor,
    accepts(request, binding) {
      const given = (request.body as Record<string, unknown> | undefined)?.csrf;
      if (!binding || typeof given !== 'string') return false;
      const expected = Buffer.from(tokenFor(binding));
      const actual = Buffer.from(given);
      const from = request.headers.origin;
      return (
        actual.length === expected.length &&
        timingSafeEqual(actual, expected) &&
        (from === undefined || from === 'null' || from === origin)
      );
    },
  };
}
