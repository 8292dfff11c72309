import type { JWK } from 'jose';
import { type Kysely, sql } from 'kysely';
import { errors, Provider } from 'oidc-provider';
import type { Logger } from 'pino';
import type { IdentityDatabase } from '../identity/schema.js';
import { DEFAULT_TOKEN_SCOPES, SCOPES } from '../identity/scopes.js';
import { SERVICE_TOKEN_AUDIENCE } from '@quarry/grpc';
import { GRANT_CLAIM, ORG_CLAIM } from './access-tokens.js';
import { recordAuthEvent } from './audit.js';
import { APPLICATION_TYPE_UNSET, clientMetadataRules } from './client-metadata.js';
import { postgresAdapterFactory } from './provider-adapter.js';
import { logoutSource, postLogoutSuccessSource, renderError } from './provider-pages.js';
import {
  grpcResourceServer,
  isServiceAccountClient,
  secretMatches,
  serviceAccountClaims,
  serviceAccountClientMetadata,
} from './service-account-clients.js';
import { describeErrors } from './token-errors.js';

export interface AuthorizationServerOptions {
  /** The issuer: the gateway's public base URL (`http://127.0.0.1:8080` under `npm start`). */
  issuer: string;
  /** The one resource tokens are issued for: the MCP endpoint's URL. */
  resource: string;
  db: Kysely<IdentityDatabase>;
  /** Private signing keys, the active one first. */
  signingKeys: JWK[];
  /** Keys that sign the authorization server's cookies; the first signs, all verify. */
  cookieKeys: string[];
  /** Behind a TLS-terminating proxy: trust X-Forwarded-Proto/Host. */
  trustProxy: boolean;
  accessTokenTtlSeconds: number;
  /** Lifetime of a service account's access token: also how long a revoked account's last token lives. */
  serviceTokenTtlSeconds: number;
  logger: Logger;
  /**
   * How the server fetches what a client's id points at (Client ID Metadata Documents); default
   * oidc-provider's, which refuses loopback and private addresses. Tests pass one that trusts
   * their self-signed certificate.
   */
  fetch?: typeof fetch;
}

/** The OAuth routes, all under /oauth so they never collide with the MCP endpoint. */
const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  userinfo: '/oauth/userinfo',
  end_session: '/oauth/logout',
  // Pushed authorization requests (RFC 9126) are on by default in oidc-provider and advertised, so
  // they live under /oauth with the rest.
  pushed_authorization_request: '/oauth/par',
} as const;

const DAY = 24 * 60 * 60;

/**
 * The embedded OAuth 2.1 authorization server on oidc-provider: authorization code with PKCE
 * (S256 only), rotating refresh tokens, resource indicators (every token's audience is the MCP
 * endpoint), `iss` in the authorization response, Dynamic Client Registration and Client ID
 * Metadata Documents. Its state lives in PostgreSQL; sign-in and consent are Quarry's own pages
 * (`interactions.ts`), which bind every grant to one user and one org.
 */
export function createAuthorizationServer(options: AuthorizationServerOptions): Provider {
  const { db, resource, logger } = options;

  const revokeGrantRecord = async (grantId: string) => {
    await db.transaction().execute(async (trx) => {
      await sql`select set_config('app.grant_id', ${grantId}, true)`.execute(trx);
      const row = await trx
        .selectFrom('identity.oauth_grants')
        .select(['org_id'])
        .where('grant_id', '=', grantId)
        .executeTakeFirst();
      if (!row) return;
      await sql`select set_config('app.org_id', ${row.org_id}, true)`.execute(trx);
      await trx
        .updateTable('identity.oauth_grants')
        .set({ revoked_at: sql`coalesce(revoked_at, now())` })
        .where('grant_id', '=', grantId)
        .execute();
    });
  };

  const stored = postgresAdapterFactory(db, revokeGrantRecord);
  const provider = new Provider(options.issuer, {
    // Service accounts are clients read from identity.service_accounts; every other client is the provider's own record.
    adapter: (model: string) => {
      const adapter = stored(model);
      if (model !== 'Client') return adapter;
      return {
        ...adapter,
        find: (id: string) => (isServiceAccountClient(id) ? serviceAccountClientMetadata(db, id) : adapter.find(id)),
      };
    },
    jwks: { keys: options.signingKeys },
    cookies: { keys: options.cookieKeys },
    ...(options.fetch ? { fetch: options.fetch } : {}),
    async findAccount(_ctx, sub) {
      const user = await db
        .selectFrom('identity.users')
        .select(['id', 'email', 'name'])
        .where('id', '=', sub)
        .executeTakeFirst();
      if (!user) return undefined;
      return { accountId: user.id, claims: () => ({ sub: user.id, email: user.email, name: user.name }) };
    },
    clientDefaults: {
      application_type: APPLICATION_TYPE_UNSET,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      // The only key type Quarry generates.
      id_token_signed_response_alg: 'ES256',
    },
    // Private-use schemes and loopback redirects for native clients (RFC 8252), refused URIs named.
    extraClientMetadata: clientMetadataRules,
    responseTypes: ['code'],
    pkce: { required: () => true },
    extraParams: {
      // An authorization request without `scope` asks for Quarry's default (read + write, what
      // the consent page offers), within what the client registered; oidc-provider would
      // otherwise grant nothing and answer access_denied after sign-in. Its documented way to
      // default a parameter: these run after its own checks of the request.
      scope(ctx, value, client) {
        if (value || ctx.oidc.route !== 'authorization') return;
        const allowed = client.scope?.split(' ');
        const scopes = DEFAULT_TOKEN_SCOPES.filter((s) => !allowed || allowed.includes(s));
        if (scopes.length > 0) ctx.oidc.params!.scope = scopes.join(' ');
      },
    },
    renderError,
    // Listed so registered clients may ask for them; they are granted for the MCP resource only.
    scopes: ['openid', 'offline_access', ...SCOPES],
    claims: { openid: ['sub'], email: ['email'], profile: ['name'] },
    routes: OAUTH_ROUTES,
    interactions: { url: (_ctx, interaction) => `/oauth/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: { enabled: true, logoutSource, postLogoutSuccessSource },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      revocation: { enabled: true },
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx, client) =>
          isServiceAccountClient(client?.clientId) ? SERVICE_TOKEN_AUDIENCE : resource,
        useGrantedResource: () => true,
        // A service account's tokens are for the gRPC services only; every other client's for the MCP endpoint only.
        getResourceServerInfo(_ctx, indicator, client) {
          if (isServiceAccountClient(client.clientId)) {
            if (indicator !== SERVICE_TOKEN_AUDIENCE)
              throw new errors.InvalidTarget(`a service account's tokens are only for ${SERVICE_TOKEN_AUDIENCE}`);
            return grpcResourceServer(SCOPES.join(' '), options.serviceTokenTtlSeconds);
          }
          if (indicator !== resource)
            throw new errors.InvalidTarget(
              `resource ${JSON.stringify(indicator)} is not this server's: it issues tokens only for ${resource}; send that resource, or none`,
            );
          return {
            scope: SCOPES.join(' '),
            audience: resource,
            accessTokenTTL: options.accessTokenTtlSeconds,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
    },
    // Binds each access token to the org its grant was consented for, or its service account's org.
    async extraTokenClaims(_ctx, token) {
      const { clientId, kind } = token as { clientId?: string; kind?: string };
      if (kind === 'ClientCredentials') {
        if (!isServiceAccountClient(clientId))
          throw new errors.InvalidClient('only service accounts use client_credentials');
        return serviceAccountClaims(db, clientId!);
      }
      const grantId = (token as { grantId?: string }).grantId;
      if (!grantId) return undefined;
      const row = await db.transaction().execute(async (trx) => {
        await sql`select set_config('app.grant_id', ${grantId}, true)`.execute(trx);
        return trx
          .selectFrom('identity.oauth_grants')
          .select(['org_id'])
          .where('grant_id', '=', grantId)
          .executeTakeFirst();
      });
      if (!row) throw new errors.InvalidGrant('the grant has no organization');
      return { [ORG_CLAIM]: row.org_id, [GRANT_CLAIM]: grantId };
    },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    expiresWithSession: async () => false,
    ttl: {
      AccessToken: options.accessTokenTtlSeconds,
      AuthorizationCode: 60,
      Interaction: 30 * 60,
      Session: 14 * DAY,
      Grant: 365 * DAY,
      RefreshToken: 30 * DAY,
      ClientCredentials: options.serviceTokenTtlSeconds,
      IdToken: 3600,
    },
  });
  provider.proxy = options.trustProxy;
  describeErrors(provider, resource);
  // Service accounts' stored secrets are hashes (oidc-provider's documented hook for that).
  const compareClientSecret = provider.Client.prototype.compareClientSecret;
  provider.Client.prototype.compareClientSecret = function (this: InstanceType<Provider['Client']>, actual: string) {
    if (!isServiceAccountClient(this.clientId)) return compareClientSecret.call(this, actual);
    return secretMatches(this.clientSecret ?? '', actual);
  };

  provider.on('grant.success', (ctx) => {
    const { oidc } = ctx;
    recordAuthEvent(db, {
      event: 'token_issued',
      userId: oidc.session?.accountId ?? oidc.entities.Grant?.accountId ?? null,
      clientId: oidc.client?.clientId ?? null,
      ip: ctx.ip,
      detail: {
        grantType: oidc.params?.grant_type,
        ...(oidc.params?.grant_type === 'client_credentials' ? { scope: oidc.entities.ClientCredentials?.scope } : {}),
      },
    }).catch((error: unknown) => logger.warn({ err: error }, 'could not record token issuance'));
  });
  provider.on('server_error', (_ctx, error) => logger.error({ err: error }, 'authorization server error'));
  return provider;
}
