import type { Provider } from 'oidc-provider';
import { tokenErrorDescription } from './error-explanations.js';

const SERVER_ERROR =
  "Quarry's authorization server could not handle this request; try again, and tell the Quarry administrator if it keeps happening";

interface ErrorBody {
  error: string;
  error_description?: string;
}

const isErrorBody = (body: unknown): body is ErrorBody =>
  typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string';

/**
 * JSON error answers in Quarry's words, through oidc-provider's documented extension points: its
 * `grant.error` event hands over the error (whose `error_detail` names the check that failed,
 * which oidc-provider keeps out of the answer), and a post-middleware rewrites the answer's
 * `error_description` from it: "PKCE verification failed: …" rather than "grant request is
 * invalid". A server error's stock description is replaced on every endpoint.
 */
export function describeErrors(provider: Provider, resource: string) {
  const grantErrors = new WeakMap<object, { error_detail?: string }>();
  provider.on('grant.error', (ctx: object, error: { error_detail?: string }) => grantErrors.set(ctx, error));
  provider.use(async (ctx, next) => {
    await next();
    const body: unknown = ctx.body;
    if (!isErrorBody(body)) return;
    if (body.error === 'server_error') {
      body.error_description = SERVER_ERROR;
      return;
    }
    const failure = grantErrors.get(ctx);
    if (!failure) return;
    const requested = (ctx.oidc?.params as { resource?: unknown } | undefined)?.resource;
    const description = tokenErrorDescription({
      error: body.error,
      description: body.error_description,
      detail: failure.error_detail,
      requestedResource: typeof requested === 'string' ? requested : undefined,
      resource,
    });
    if (description) body.error_description = description;
  });
}
