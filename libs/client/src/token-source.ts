import { SERVICE_TOKEN_AUDIENCE, type TokenSource } from '@quarry/grpc';

export interface ServiceAccountCredentials {
  /** The authorization server's issuer: Quarry's public URL (`http://127.0.0.1:8080` under `npm start`). */
  issuer: string;
  /** From `quarry service-account create`. */
  clientId: string;
  clientSecret: string;
  /** The scopes to ask for, within the account's own (e.g. `['quarry:read']`). */
  scopes: readonly string[];
  /** The token endpoint; `<issuer>/oauth/token` when omitted. */
  tokenUrl?: string;
  /** Fetch to use (tests, proxies); the global one when omitted. */
  fetch?: typeof fetch;
}

/** Renew this long before `expires_in` runs out, so a token never expires in flight. */
const RENEW_BEFORE_MS = 30_000;

/** Thrown when the authorization server refuses the account (revoked, wrong secret, scope not allowed). */
export class TokenRequestError extends Error {
  override readonly name = 'TokenRequestError';
  constructor(
    readonly status: number,
    readonly error: string,
    description: string | undefined,
  ) {
    super(
      `The token endpoint refused the service account (${status} ${error})${description ? `: ${description}` : ''}`,
    );
  }
}

/**
 * Gets the service account's access token, reusing it until shortly before it expires.
 * OAuth 2.1 client credentials (RFC 6749 §4.4) with a resource indicator (RFC 8707): the client
 * id and secret in HTTP Basic, `resource=urn:quarry:grpc`, the scopes asked for.
 */
export function createTokenSource(credentials: ServiceAccountCredentials): TokenSource {
  const fetchImpl = credentials.fetch ?? fetch;
  const tokenUrl = credentials.tokenUrl ?? `${credentials.issuer.replace(/\/+$/, '')}/oauth/token`;
  const basic = Buffer.from(
    `${encodeURIComponent(credentials.clientId)}:${encodeURIComponent(credentials.clientSecret)}`,
  ).toString('base64');
  let current: { token: string; renewAt: number } | undefined;
  let pending: Promise<string> | undefined;

  async function request(): Promise<string> {
    const response = await fetchImpl(tokenUrl, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        resource: SERVICE_TOKEN_AUDIENCE,
        scope: credentials.scopes.join(' '),
      }),
    });
    const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (!response.ok || typeof body.access_token !== 'string') {
      throw new TokenRequestError(
        response.status,
        typeof body.error === 'string' ? body.error : 'invalid_response',
        typeof body.error_description === 'string' ? body.error_description : undefined,
      );
    }
    const expiresInMs = (typeof body.expires_in === 'number' ? body.expires_in : 60) * 1000;
    current = { token: body.access_token, renewAt: Date.now() + Math.max(0, expiresInMs - RENEW_BEFORE_MS) };
    return body.access_token;
  }

  return {
    token() {
      if (current && Date.now() < current.renewAt) return Promise.resolve(current.token);
      pending ??= request().finally(() => {
        pending = undefined;
      });
      return pending;
    },
  };
}
