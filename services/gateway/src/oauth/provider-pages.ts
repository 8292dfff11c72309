import { errors, type KoaContextWithOIDC, type ErrorOut } from 'oidc-provider';
import { explainAuthorizationError } from './error-explanations.js';
import { oauthErrorPage, pageHeaders, signedOutPage, signOutPage } from './pages.js';

/**
 * The pages oidc-provider itself renders, in Quarry's words and look: its documented
 * `renderError`, `features.rpInitiatedLogout.logoutSource` and `postLogoutSuccessSource` hooks.
 * Its stock pages (an "oops! something went wrong" that lists every field of the error, `state`
 * included) never reach a browser.
 */

/** A string request parameter: what the request named, for the page to quote (escaped). */
function param(ctx: KoaContextWithOIDC, name: string): string | undefined {
  const fromParams = (ctx.oidc?.params as Record<string, unknown> | undefined)?.[name];
  const value = fromParams ?? (ctx.query as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : undefined;
}

function send(ctx: KoaContextWithOIDC, body: string) {
  for (const [name, value] of Object.entries(pageHeaders())) ctx.set(name, value);
  ctx.body = body;
}

export function renderError(ctx: KoaContextWithOIDC, out: ErrorOut, error: Error) {
  const serverError = out.error === 'server_error';
  const description = serverError ? undefined : out.error_description;
  const explanation = explainAuthorizationError({
    error: out.error,
    description,
    sessionLost: error instanceof errors.SessionNotFound,
    redirectUri: param(ctx, 'redirect_uri'),
    clientId: param(ctx, 'client_id'),
  });
  send(ctx, oauthErrorPage(explanation, { error: out.error, description }));
}

export function logoutSource(ctx: KoaContextWithOIDC, form: string) {
  send(ctx, signOutPage(form));
}

export function postLogoutSuccessSource(ctx: KoaContextWithOIDC) {
  send(ctx, signedOutPage());
}
