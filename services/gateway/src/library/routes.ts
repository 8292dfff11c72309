import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Provider } from 'oidc-provider';
import type { IdentityDatabase } from '../identity/schema.js';
import type { Tools } from '../mcp/tools/call.js';
import { createBrowserSessions } from './browser-session.js';
import { registerItemPage } from './item-page.js';
import { registerSignIn } from './sign-in.js';

export interface LibraryPagesOptions {
  tools: Tools;
  /** The embedded authorization server: its sign-in session is accepted, its issuer is the public URL. */
  provider: Provider;
  db: Kysely<IdentityDatabase>;
  /** Signs the library's session cookie and its sign-in form (each under a label of its own). */
  key: Uint8Array;
}

/**
 * The library's pages for people (docs/adr/0042-chatgpt-search-and-fetch.md): each stored item's
 * permalink page, and the sign-in that leads to it. Served only with the embedded authorization
 * server, whose sign-in they share; a web app is to replace them.
 */
export function registerLibraryPages(app: FastifyInstance, options: LibraryPagesOptions): void {
  const { origin, protocol } = new URL(options.provider.issuer);
  const secure = protocol === 'https:';
  const sessions = createBrowserSessions({ provider: options.provider, key: options.key, secure });
  registerItemPage(app, { tools: options.tools, db: options.db, sessions });
  registerSignIn(app, { db: options.db, sessions, key: options.key, origin, secure });
}
