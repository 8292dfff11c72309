import { createHash } from 'node:crypto';
import { createRemoteJWKSet, customFetch, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { loadMember } from '../identity/credentials.js';
import { isScope } from '../identity/scopes.js';
import { type AccessTokenVerifier, IssuerUnavailableError, looksLikeJwt, refusal } from './access-tokens.js';

export interface ExternalIssuerOptions {
  issuer: string;
  /** The audience tokens must name (default: the MCP endpoint's URL). */
  audience: string;
  /** The issuer's JWKS; without it, `jwks_uri` from its RFC 8414 / OIDC discovery document. */
  jwksUrl?: string;
  /** The claim holding the user's email. */
  emailClaim: string;
  /** The claim holding the org's slug; `defaultOrg` when a token has none. */
  orgClaim: string;
  defaultOrg?: string;
  fetch?: typeof fetch;
}

/**
 * The issuer's `jwks_uri`, from its authorization-server metadata or, failing that, OIDC
 * discovery. Neither answering usably is an outage of the issuer (or its misconfiguration, which
 * the log names): no token can be judged until it answers, so callers are asked to retry.
 */
async function discoverJwksUri(issuer: string, fetcher: typeof fetch): Promise<string> {
  const base = issuer.replace(/\/+$/, '');
  const failures: string[] = [];
  for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
    try {
      const response = await fetcher(`${base}${path}`, { signal: AbortSignal.timeout(5_000) });
      if (!response.ok) {
        failures.push(`${path}: HTTP ${response.status}`);
        continue;
      }
      const metadata = (await response.json()) as { issuer?: string; jwks_uri?: string };
      if (metadata.jwks_uri && metadata.issuer === issuer) return metadata.jwks_uri;
      failures.push(`${path}: no jwks_uri for issuer ${issuer}`);
    } catch (error) {
      failures.push(`${path}: ${(error as Error).message}`);
    }
  }
  throw new IssuerUnavailableError(`No usable metadata with a jwks_uri at ${issuer} (${failures.join('; ')})`);
}

/**
 * jose's key-set fetch, with a failure to reach the issuer (network error, timeout, an answer
 * other than 200) told apart from a bad token. jose keeps no failed fetch: the next request
 * fetches again, so the gateway recovers by itself once the issuer is back.
 */
const keySetFetch =
  (fetcher: typeof fetch) =>
  async (url: string, init: RequestInit): Promise<Response> => {
    let response: Response;
    try {
      response = await fetcher(url, init);
    } catch (error) {
      throw new IssuerUnavailableError(`The JWKS at ${url} is unreachable: ${(error as Error).message}`);
    }
    if (response.status !== 200)
      throw new IssuerUnavailableError(`The JWKS at ${url} answered HTTP ${response.status}`);
    return response;
  };

const scopesOf = (payload: Record<string, unknown>): string[] => {
  const raw = payload.scope ?? payload.scp;
  const list = Array.isArray(raw) ? raw.map(String) : typeof raw === 'string' ? raw.split(' ') : [];
  return list.filter(isScope);
};

/**
 * Verifies access tokens of an external authorization server (Keycloak, Auth0, Entra ID, Okta…),
 * in which case Quarry is only the resource server: jose checks the signature against the
 * issuer's JWKS (cached by jose, refetched for an unknown `kid`), `iss`, `aud`, `exp`/`nbf`; the
 * configured claims name the user (by email) and the org (by slug), who must be a member there.
 * Scopes come from `scope` (or `scp`); revocation is the issuer's, through token lifetime.
 */
export function createExternalTokenVerifier(options: ExternalIssuerOptions): AccessTokenVerifier {
  const fetcher = options.fetch ?? fetch;
  let keys: Promise<JWTVerifyGetKey> | undefined;
  const jwks = () =>
    (keys ??= (options.jwksUrl ? Promise.resolve(options.jwksUrl) : discoverJwksUri(options.issuer, fetcher)).then(
      (url) => createRemoteJWKSet(new URL(url), { [customFetch]: keySetFetch(fetcher) }),
      (error: unknown) => {
        keys = undefined;
        throw error;
      },
    ));
  return {
    async verify(token) {
      if (!looksLikeJwt(token)) return { ok: false, reason: 'malformed' };
      try {
        const { payload } = await jwtVerify(token, await jwks(), {
          issuer: options.issuer,
          audience: options.audience,
          algorithms: ['RS256', 'PS256', 'ES256', 'ES384', 'EdDSA'],
          clockTolerance: 5,
          requiredClaims: ['exp', 'sub'],
        });
        const email = payload[options.emailClaim];
        const orgSlug = payload[options.orgClaim] ?? options.defaultOrg;
        if (typeof email !== 'string' || typeof orgSlug !== 'string') return { ok: false, reason: 'unknown' };
        const digest = createHash('sha256').update(`${options.issuer}\n${payload.sub}`).digest('hex');
        const credentialId = `${digest.slice(0, 8)}-${digest.slice(8, 12)}-4${digest.slice(13, 16)}-8${digest.slice(17, 20)}-${digest.slice(20, 32)}`;
        const scopes = scopesOf(payload);
        const expiresAt = new Date(payload.exp! * 1000);
        return {
          ok: true,
          credential: {
            key: `external:${credentialId}:${orgSlug}:${email}`,
            load: (db) => loadMember(db, { credentialId, email, orgSlug }),
            shape: (member) => Object.freeze({ ...member, scopes: Object.freeze(scopes), expiresAt }),
          },
        };
      } catch (error) {
        return refusal(error);
      }
    },
  };
}
