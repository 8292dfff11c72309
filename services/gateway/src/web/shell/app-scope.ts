import type { FastifyError, FastifyInstance } from 'fastify';
import { registerAssets } from './assets.js';
import { UNAVAILABLE } from './error-pages.js';
import { registerSignIn, type SignInLimits } from './sign-in.js';
import type { WebShell } from './web-shell.js';

/**
 * Makes `scope` (registered under the /app prefix) the app: form bodies parsed, every route but
 * the anonymous ones behind the sign-in and every POST behind its form token, the app's own 404
 * and error pages, the assets, the sign-in and /app itself. Each area then adds its routes to it.
 */
export function installWebShell(
  scope: FastifyInstance,
  shell: WebShell,
  options: { generatedAssets?: Readonly<Record<string, string>>; limits?: SignInLimits } = {},
): void {
  scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  scope.addHook('preHandler', async (request, reply) => {
    if (request.routeOptions.config.anonymous) return undefined;
    return shell.admit(request, reply);
  });
  // An unknown app path is answered like a missing item, after the same sign-in check.
  scope.setNotFoundHandler(async (request, reply) => {
    const refused = await shell.admit(request, reply);
    return refused ?? shell.notFound(request, reply);
  });
  scope.setErrorHandler(async (error: FastifyError, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status >= 500) request.log.error({ err: error }, 'an app page failed');
    if (status === 500 || status === 503)
      return shell.message(request, reply, 503, UNAVAILABLE.title, UNAVAILABLE.message);
    return shell.message(request, reply, status, 'Request refused', 'Quarry could not read this request.');
  });
  registerAssets(scope, options.generatedAssets);
  registerSignIn(scope, shell, options.limits);
  scope.get('/', async (_request, reply) => reply.redirect('/app/plans', 303));
}
