/**
 * What Quarry tells a person, and a client's developer, about an OAuth error: pure text, chosen
 * from the error oidc-provider raised. The pages escape all of it; nothing here is HTML.
 */

/** An error page's text: what went wrong, and what to do about it. */
export interface ErrorExplanation {
  title: string;
  problem: string;
  remedy: string;
}

export interface AuthorizationErrorInput {
  /** The OAuth error code (`invalid_redirect_uri`, `invalid_client`, `server_error`…). */
  error: string;
  /** oidc-provider's or Quarry's description of it (never shown for a server error). */
  description?: string;
  /** The interaction or the authorization request it belongs to is gone (expired, other browser). */
  sessionLost?: boolean;
  /** The redirect URI the request named, when it named one. */
  redirectUri?: string;
  /** The client the request named. */
  clientId?: string;
}

const RECONNECT = 'Go back to the app and connect to Quarry again.';
const DEVELOPER = "This is for the app's developer to fix: the error code and details below say what Quarry refused.";

/** The page for an error at the authorization endpoint (or any OAuth page a browser opened). */
export function explainAuthorizationError(input: AuthorizationErrorInput): ErrorExplanation {
  const { error, description = '', redirectUri, clientId } = input;
  if (input.sessionLost)
    return {
      title: 'This sign-in has expired',
      problem: 'Quarry no longer has this sign-in request: it expired, or it was opened in another browser.',
      remedy: RECONNECT,
    };
  switch (error) {
    case 'invalid_redirect_uri':
      if (description.startsWith('redirect_uris'))
        return {
          title: "This app's registration is not valid",
          problem: `Quarry refused the app's redirect address: ${description.replace(/^redirect_uris: /, '')}.`,
          remedy: DEVELOPER,
        };
      return {
        title: 'This app asked to send you somewhere it did not register',
        problem: redirectUri
          ? `The app asked Quarry to send you back to ${redirectUri}, which is not one of the addresses it registered. Quarry does not send you there.`
          : 'The app named no redirect address it registered. Quarry does not know where to send you back.',
        remedy: `${RECONNECT} If it happens again, remove Quarry from the app and add it anew so that it registers again, or tell the app's developer.`,
      };
    case 'invalid_client':
      return description.includes('metadata document')
        ? {
            title: "Quarry could not read this app's description",
            problem: `The app identifies itself by ${clientId ?? 'a metadata document URL'}, and Quarry could not fetch a valid document there.`,
            remedy: `${RECONNECT} If it happens again, the app's developer must serve that document.`,
          }
        : {
            title: 'Quarry does not know this app',
            problem: clientId
              ? `No app is registered with Quarry as ${clientId}: its registration may have been removed.`
              : 'The request did not say which app is connecting (client_id).',
            remedy: 'Remove Quarry from the app and add it again, so that the app registers anew.',
          };
    case 'invalid_client_metadata':
      return {
        title: "This app's registration is not valid",
        problem: `Quarry refused the app's description of itself: ${description}.`,
        remedy: DEVELOPER,
      };
    case 'access_denied':
      return {
        title: 'Access was not granted',
        problem: description || 'The app was not allowed to use your Quarry account.',
        remedy: RECONNECT,
      };
    case 'server_error':
      return {
        title: 'Quarry could not finish this sign-in',
        problem: 'Something went wrong on Quarry’s side, not in the app or in what you did.',
        remedy: 'Try again in a moment. If it keeps happening, tell your Quarry administrator.',
      };
    default:
      return {
        title: 'Quarry could not connect this app',
        problem: description
          ? `The app's sign-in request was refused: ${description}.`
          : "The app's sign-in request was refused.",
        remedy: `${RECONNECT} If it happens again, tell the app's developer; the details below say what was wrong.`,
      };
  }
}

/**
 * The `error_description` of a refused token request, by the check that failed (oidc-provider's
 * error detail), so a client's developer learns which one without the server's logs.
 */
const TOKEN_CHECKS: Record<string, string> = {
  'code_verifier must be provided':
    'code_verifier is missing: send the PKCE verifier whose S256 hash was the code_challenge of the authorization request',
  'code_verifier does not match code_challenge':
    'PKCE verification failed: the code_verifier does not match the code_challenge sent with the authorization request',
  'authorization code not found':
    'the authorization code is unknown, already used or expired (codes last 60 seconds and work once): authorize again',
  'authorization code is expired':
    'the authorization code has expired (codes last 60 seconds): authorize again and exchange the new code at once',
  'authorization code already consumed':
    'the authorization code was already used; the tokens issued for it are revoked: authorize again',
  'authorization code redirect_uri mismatch':
    'redirect_uri differs from the one sent with the authorization request: send exactly that redirect_uri',
  'client mismatch':
    'the code or refresh token was issued to another client: send the client_id (and credentials) of the client that started the authorization',
  'grant not found': 'the authorization behind this code or token has been revoked or has ended: authorize again',
  'grant is expired': 'the authorization behind this code or token has expired: authorize again',
  'refresh token not found': 'the refresh token is unknown, revoked or expired: authorize again',
  'refresh token is expired': 'the refresh token has expired: authorize again',
  'refresh token already used':
    'the refresh token was already used (each works once, and its replacement came with the previous answer); the authorization is revoked: authorize again',
  'client not found':
    'no client is registered with this client_id: register again (its registration may have been removed)',
};

export interface TokenErrorInput {
  error: string;
  description?: string;
  /** oidc-provider's detail of the error: the check that failed, which it keeps out of answers. */
  detail?: string;
  /** The `resource` the token request named, and the one resource this server issues tokens for. */
  requestedResource?: string;
  resource: string;
}

/**
 * Quarry's description of a token-endpoint error, when it can say more than oidc-provider's: a
 * known check in Quarry's words, any other check appended to the generic description of a grant
 * or client error, and a resource the code or token was not granted for named.
 */
export function tokenErrorDescription(input: TokenErrorInput): string | undefined {
  const { error, description, detail } = input;
  if (error === 'invalid_target' && input.requestedResource && input.requestedResource !== input.resource)
    return `resource ${JSON.stringify(input.requestedResource)} is not this server's: it issues tokens only for ${input.resource}; send that resource, or none`;
  if (detail === undefined) return undefined;
  const known = TOKEN_CHECKS[detail];
  if (known) return known;
  if (error !== 'invalid_grant' && error !== 'invalid_client') return undefined;
  return `${description ?? error}: ${detail}`;
}
