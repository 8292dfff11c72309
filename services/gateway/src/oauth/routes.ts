import type { FastifyInstance } from 'fastify';
import type { Provider } from 'oidc-provider';
import { SCOPES } from '../identity/scopes.js';
import { type InteractionOptions, registerInteractions } from './interactions.js';

/** What the gateway publishes and serves for OAuth, embedded or with an external issuer. */
export interface OAuthHttp {
  /** The MCP endpoint's URL: the `resource` of RFC 9728 and every token's audience. */
  resource: string;
  /** Issuers whose tokens are accepted (the embedded server's, or the external one). */
  authorizationServers: readonly string[];
  /** The embedded authorization server, when Quarry runs its own. */
  embedded?: Omit<InteractionOptions, 'resource'> & { provider: Provider };
}

/** Where a resource's RFC 9728 metadata lives: the well-known prefix before the resource's path. */
export function resourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname;
  return `${url.origin}/.well-known/oauth-protected-resource${path}`;
}

/**
 * RFC 9728 protected-resource metadata (at the root and path-aware for /mcp) and, when Quarry
 * is its own authorization server, oidc-provider's endpoints under /oauth, its RFC 8414
 * metadata and the sign-in and consent pages.
 */
export async function registerOAuthRoutes(app: FastifyInstance, oauth: OAuthHttp) {
  const metadata = {
    resource: oauth.resource,
    authorization_servers: oauth.authorizationServers,
    scopes_supported: SCOPES,
    bearer_methods_supported: ['header'],
    resource_name: 'Quarry',
  };
  const path = new URL(oauth.resource).pathname;
  for (const url of ['/.well-known/oauth-protected-resource', `/.well-known/oauth-protected-resource${path}`]) {
    app.get(url, async (_request, reply) =>
      reply.headers({ 'access-control-allow-origin': '*', 'cache-control': 'public, max-age=300' }).send(metadata),
    );
  }

  const embedded = oauth.embedded;
  if (!embedded) return;
  const { provider } = embedded;
  const callback = provider.callback();
  // oidc-provider is a Koa app: it reads the raw request itself (bodies included), so it takes the
  // request before fastify parses anything. RFC 8414 metadata is its discovery document.
  const handOver = async (
    request: { raw: import('node:http').IncomingMessage },
    reply: { hijack(): void; raw: import('node:http').ServerResponse },
  ) => {
    reply.hijack();
    await callback(request.raw, reply.raw);
  };
  app.route({
    method: ['GET', 'POST', 'OPTIONS', 'DELETE', 'PUT'],
    url: '/oauth/*',
    onRequest: async (request, reply) => {
      await handOver(request, reply);
      return reply;
    },
    handler: async () => undefined,
  });
  for (const url of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']) {
    app.route({
      method: ['GET', 'OPTIONS'],
      url,
      onRequest: async (request, reply) => {
        request.raw.url = '/.well-known/openid-configuration';
        await handOver(request, reply);
        return reply;
      },
      handler: async () => undefined,
    });
  }
  registerInteractions(app, { ...embedded, resource: oauth.resource });
}
