import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Provider } from 'oidc-provider';

/** A person signed in in this browser: who, and the session's own id (the tool-call log's token id). */
export interface BrowserSession {
  sessionId: string;
  userId: string;
}

export interface BrowserSessions {
  /**
   * The person signed in in the browser making this request: the app's own session, or the
   * embedded authorization server's (a person who connected an app in this browser is signed in).
   */
  current(request: FastifyRequest, reply: FastifyReply): Promise<BrowserSession | undefined>;
  /** The Set-Cookie value that signs `userId` in to the app. */
  cookieFor(userId: string): string;
  /** Signs the browser out: the Set-Cookie value that clears the app's cookie, after ending the authorization server's session. */
  end(request: FastifyRequest, reply: FastifyReply): Promise<string>;
}

const COOKIE = 'quarry_session';

/**
 * The one browser session of the web app (docs/adr/0048-web-app-stack.md). The cookie holds a
 * session id, the person and an expiry, signed with `key`; it is HttpOnly, SameSite=Lax (a link
 * followed from a chat opens the page signed in; every POST also carries a CSRF token), scoped to
 * /app and Secure when the public URL is https.
 */
export function createBrowserSessions(options: {
  provider: Provider;
  key: Uint8Array;
  secure: boolean;
  ttlSeconds?: number;
}): BrowserSessions {
  const ttlSeconds = options.ttlSeconds ?? 12 * 3600;
  const attributes = `Path=/app; HttpOnly; SameSite=Lax${options.secure ? '; Secure' : ''}`;
  const mac = (payload: string) =>
    createHmac('sha256', options.key).update(`app-session:${payload}`).digest('base64url');

  function fromCookie(request: FastifyRequest): BrowserSession | undefined {
    const value = cookieValue(request.headers.cookie, COOKIE);
    const [sessionId, userId, exp, signature] = value?.split('.') ?? [];
    if (!sessionId || !userId || !exp || !signature) return undefined;
    const expected = Buffer.from(mac(`${sessionId}.${userId}.${exp}`));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    return Number(exp) * 1000 > Date.now() ? { sessionId, userId } : undefined;
  }

  const providerSession = (request: FastifyRequest, reply: FastifyReply) =>
    options.provider.Session.get(options.provider.createContext(request.raw, reply.raw));

  async function fromAuthorizationServer(request: FastifyRequest, reply: FastifyReply) {
    const session = await providerSession(request, reply);
    if (!session.accountId) return undefined;
    // The session's id is not a UUID: the one it stands for in the tool-call log is derived from it.
    const hex = createHash('sha256').update(`oauth-session:${session.jti}`).digest('hex');
    const sessionId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
    return { sessionId, userId: session.accountId };
  }

  return {
    async current(request, reply) {
      return fromCookie(request) ?? (await fromAuthorizationServer(request, reply));
    },
    cookieFor(userId) {
      const sessionId = randomUUID();
      const exp = Math.floor(Date.now() / 1000) + ttlSeconds;
      const value = `${sessionId}.${userId}.${exp}.${mac(`${sessionId}.${userId}.${exp}`)}`;
      return `${COOKIE}=${value}; Max-Age=${ttlSeconds}; ${attributes}`;
    },
    async end(request, reply) {
      const session = await providerSession(request, reply);
      if (session.accountId) await session.destroy();
      return `${COOKIE}=; Max-Age=0; ${attributes}`;
    },
  };
}

/** A cookie's value from a Cookie header, or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of header?.split(';') ?? []) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
