import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Provider } from 'oidc-provider';
import type { IdentityDatabase } from '../identity/schema.js';
import type { Tools } from '../mcp/tools/call.js';
import { VIEWS_CSS } from '@quarry/views';
import { registerLibrary } from './library/library-routes.js';
import { type PeoplePagesOptions, PEOPLE_NAV, registerPeoplePages } from './people/people-pages.js';
import { LIBRARY_NAV } from './library/nav.js';
import { installWebShell } from './shell/app-scope.js';
import { registerLegacyRedirects } from './shell/legacy-redirects.js';
import { createWebShell } from './shell/web-shell.js';

export interface WebAppOptions {
  tools: Tools;
  /** The embedded authorization server: its sign-in session is accepted, its issuer is the public URL. */
  provider: Provider;
  db: Kysely<IdentityDatabase>;
  /** Signs the app's session cookie and its forms (each under a label of its own). */
  key: Uint8Array;
  /** Onboarding, preferences, admin and operations pages; none without it. */
  people?: PeoplePagesOptions;
}

/**
 * The web app for people (docs/adr/0048-web-app-stack.md), under /app on the gateway's origin:
 * server-rendered pages, signed in through the embedded authorization server's accounts, every
 * action a tool call with the person's principal (the same services, checks and audit as a
 * client's call). Each area registers its routes into the one /app scope the shell sets up.
 */
export async function registerWebApp(app: FastifyInstance, options: WebAppOptions): Promise<void> {
  const shell = createWebShell({ ...options, nav: [...LIBRARY_NAV, ...(options.people ? PEOPLE_NAV : [])] });
  await app.register(
    async (scope) => {
      installWebShell(scope, shell, { generatedAssets: { 'views.css': VIEWS_CSS } });
      registerLibrary(scope, shell);
      if (options.people) registerPeoplePages(scope, shell, options.people);
    },
    { prefix: '/app' },
  );
  registerLegacyRedirects(app);
}
