import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Provider } from 'oidc-provider';
import type { IdentityDatabase, Principal } from '../../identity/schema.js';
import type { Caller } from '../../mcp/request-context.js';
import type { Tools } from '../../mcp/tools/call.js';
import { type AppOrg, type AppUser, loadAppUser, principalOf } from './app-user.js';
import { createCsrf, type Csrf } from './csrf.js';
import { messageBody, NOT_FOUND_TITLE, notFoundBody, REFUSED } from './error-pages.js';
import { type NavItem, renderPage } from './layout.js';
import { sendHtml } from './security-headers.js';
import { type BrowserSessions, cookieValue, createBrowserSessions } from './session.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** An app route anyone may open (sign-in, assets); every other one needs a signed-in person. */
    anonymous?: boolean;
  }
}

export interface WebShellOptions {
  tools: Tools;
  /** The embedded authorization server: its sign-in session is accepted, its issuer is the public URL. */
  provider: Provider;
  db: Kysely<IdentityDatabase>;
  /** Signs the session cookie and the forms' tokens (each under a label of its own). */
  key: Uint8Array;
  nav: readonly NavItem[];
}

/** The signed-in person of a request, in the org they are working in, as a page and its tool calls see them. */
export interface Viewer {
  user: AppUser;
  org: AppOrg;
  principal: Principal;
  /** The token each of the page's forms carries. */
  csrf: string;
}

/** What every area of the app builds its pages with. */
export interface WebShell {
  readonly tools: Tools;
  readonly db: Kysely<IdentityDatabase>;
  readonly sessions: BrowserSessions;
  readonly csrf: Csrf;
  readonly origin: string;
  readonly secure: boolean;
  /** The viewer of a request that passed the shell's sign-in check (any route not `anonymous`). */
  viewer(request: FastifyRequest): Viewer;
  /** A tool call's caller for the viewer: the same path, checks and audit as a client's call. */
  caller(request: FastifyRequest): Caller;
  /** Sends a page in the app's layout (with the nav when the request has a viewer). */
  page(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    page: { title: string; body: string; scripts?: readonly string[]; styles?: readonly string[]; path?: string },
  ): FastifyReply;
  /** The one 404 page: a missing item, another org's and a malformed id alike. */
  notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply;
  message(request: FastifyRequest, reply: FastifyReply, status: number, title: string, message: string): FastifyReply;
  /**
   * Resolves the viewer of a request (the org chosen in this browser, else the first), or sends
   * the browser to sign in; refuses a POST whose form token or Origin is wrong. Undefined when the
   * request may go on.
   */
  admit(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined>;
  /** The Set-Cookie value that makes `slug` the org this browser works in. */
  orgCookie(slug: string): string;
}

const ORG_COOKIE = 'quarry_org';

export function createWebShell(options: WebShellOptions): WebShell {
  const { origin, protocol } = new URL(options.provider.issuer);
  const secure = protocol === 'https:';
  const sessions = createBrowserSessions({ provider: options.provider, key: options.key, secure });
  const csrf = createCsrf(options.key, origin);
  const viewers = new WeakMap<FastifyRequest, Viewer>();

  const shell: WebShell = {
    tools: options.tools,
    db: options.db,
    sessions,
    csrf,
    origin,
    secure,
    viewer(request) {
      const viewer = viewers.get(request);
      if (!viewer) throw new Error(`${request.url} has no signed-in viewer: is the route anonymous?`);
      return viewer;
    },
    caller(request) {
      return { principal: shell.viewer(request).principal, requestId: String(request.id) };
    },
    page(request, reply, status, page) {
      const viewer = viewers.get(request);
      const path = request.url.split('?')[0];
      return sendHtml(reply, status, renderPage(options.nav, { path, ...page, viewer }));
    },
    notFound(request, reply) {
      // Word for word the same wherever it is asked for: no nav item is marked.
      return shell.page(request, reply, 404, { title: NOT_FOUND_TITLE, body: notFoundBody(), path: '' });
    },
    message(request, reply, status, title, message) {
      return shell.page(request, reply, status, { title, body: messageBody(title, message) });
    },
    async admit(request, reply) {
      const session = await sessions.current(request, reply);
      const user = session && (await loadAppUser(options.db, session));
      if (!user) {
        const next = request.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : '';
        return reply.redirect(`/app/sign-in${next}`, 303);
      }
      const chosen = cookieValue(request.headers.cookie, ORG_COOKIE);
      const org = user.orgs.find((o) => o.slug === chosen) ?? user.orgs[0]!;
      viewers.set(request, { user, org, principal: principalOf(user, org), csrf: csrf.tokenFor(user.sessionId) });
      if (request.method === 'POST' && !csrf.accepts(request, user.sessionId))
        return shell.message(request, reply, 403, REFUSED.title, REFUSED.message);
      return undefined;
    },
    orgCookie(slug) {
      return `${ORG_COOKIE}=${encodeURIComponent(slug)}; Path=/app; Max-Age=31536000; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
    },
  };

  return shell;
}
