import { createLocalJWKSet, type JWK } from 'jose';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config.js';
import type { IdentityDatabase } from '../identity/schema.js';
import { createAccessTokenVerifier, reloadingKeySet } from './access-tokens.js';
import { createExternalTokenVerifier } from './external-tokens.js';
import { ensureSigningKeys, publicKeySet, publicKeysOf } from './signing-keys.js';

/**
 * The gateway's OAuth arrangement: by default the embedded authorization server, whose issuer is
 * the gateway's public URL and whose only resource is this gateway's MCP endpoint; or an
 * external issuer's tokens. `derive` gives the gateway's keys for a purpose.
 */
export async function gatewayOAuth(options: {
  config: GatewayConfig;
  db: Kysely<IdentityDatabase>;
  logger: Logger;
  derive: (purpose: string) => Buffer;
  oauthFetch?: typeof fetch;
}) {
  const { config, db, logger, derive } = options;
  const resource = `${config.publicUrl}/mcp`;
  if (config.QUARRY_OAUTH_ISSUER)
    return {
      resource,
      http: { resource, authorizationServers: [config.QUARRY_OAUTH_ISSUER] },
      accessTokens: createExternalTokenVerifier({
        issuer: config.QUARRY_OAUTH_ISSUER,
        audience: config.QUARRY_OAUTH_AUDIENCE ?? resource,
        jwksUrl: config.QUARRY_OAUTH_JWKS_URL,
        emailClaim: config.QUARRY_OAUTH_EMAIL_CLAIM,
        orgClaim: config.QUARRY_OAUTH_ORG_CLAIM,
        defaultOrg: config.QUARRY_OAUTH_DEFAULT_ORG,
      }),
    };
  // Loaded only here: oidc-provider warns on Node 20 as it loads, which CLI commands need not print.
  const { createAuthorizationServer } = await import('./authorization-server.js');
  const issuer = config.publicUrl;
  // Frozen config reads back deeply readonly; the keys were checked when it loaded.
  const fileKeys = config.QUARRY_OAUTH_SIGNING_KEYS_FILE as readonly JWK[] | undefined;
  const provider = createAuthorizationServer({
    issuer,
    resource,
    db,
    signingKeys: fileKeys ? [...fileKeys] : await ensureSigningKeys(db),
    cookieKeys: [derive('oauth-cookies').toString('base64url')],
    trustProxy: config.QUARRY_TRUST_PROXY,
    accessTokenTtlSeconds: Math.max(1, Math.round(config.QUARRY_OAUTH_ACCESS_TOKEN_TTL / 1000)),
    serviceTokenTtlSeconds: Math.max(1, Math.round(config.QUARRY_SERVICE_TOKEN_TTL / 1000)),
    logger,
    fetch: options.oauthFetch,
  });
  return {
    resource,
    http: {
      resource,
      authorizationServers: [issuer],
      embedded: {
        provider,
        db,
        csrfKey: derive('oauth-csrf'),
        sso: config.QUARRY_SSO_ISSUER
          ? {
              issuer: config.QUARRY_SSO_ISSUER,
              clientId: config.QUARRY_SSO_CLIENT_ID!,
              clientSecret: config.QUARRY_SSO_CLIENT_SECRET!,
              name: config.QUARRY_SSO_NAME,
            }
          : undefined,
      },
    },
    accessTokens: createAccessTokenVerifier({
      issuer,
      audience: resource,
      // Keys from a file are all there is; the stored ones may be rotated on another replica.
      keys: fileKeys ? createLocalJWKSet(publicKeysOf(fileKeys)) : reloadingKeySet(() => publicKeySet(db)),
    }),
  };
}
