import { randomUUID } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/fastify';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createAuthentication } from './http/authentication.js';
import { registerDocumentRoutes } from './http/document-routes.js';
import { errorHandler, sendError } from './http/error-replies.js';
import { registerMcpRoute } from './http/mcp-route.js';
import type { TokenAuthenticator } from './identity/authenticator.js';
import { createMcpEndpoint, type LongCallOptions, quarryServerInfo } from './mcp/endpoint.js';
import { createToolCallFastPath } from './mcp/fast-path.js';
import type { PlanSubscriptions } from './mcp/subscriptions/plan-subscriptions.js';
import type { Tools } from './mcp/tools/call.js';
import type { Permalinks } from './web/permalinks.js';
import { type OAuthHttp, registerOAuthRoutes, resourceMetadataUrl } from './oauth/routes.js';
import type { PeoplePagesOptions } from './web/people/people-pages.js';
import { registerWebApp } from './web/routes.js';

export interface GatewayHttpOptions {
  /** Hostnames accepted in the Host header (DNS-rebinding guard); `['*']` accepts any. */
  allowedHosts: readonly string[];
  /** Origin hostnames accepted when a browser sends `Origin`; requests without one always pass. */
  allowedOrigins: readonly string[];
  bodyLimitBytes: number;
  rateLimitPerMinute: number;
  trustProxy: boolean;
  /** Largest file `POST /documents` accepts (default 64 MiB). */
  uploadLimitBytes?: number;
}

const DEFAULT_UPLOAD_LIMIT_BYTES = 64 * 1024 * 1024;

export interface GatewayDeps {
  http: GatewayHttpOptions;
  authenticator: Pick<TokenAuthenticator, 'authenticate' | 'authenticateUnconfirmed'>;
  tools: Tools;
  logger: Logger;
  version: string;
  /**
   * The MCP endpoint's key (≥ 32 bytes, the same on every replica): it signs input-required round
   * trips (sampling, forms) and, under a derived key, seals resources/list cursors.
   */
  requestStateKey: Uint8Array;
  /**
   * Prometheus exposition for a /metrics route; without it there is none (the gateway serves its
   * metrics on a port of their own, METRICS_PORT, so the public port never exposes them).
   */
  metricsText?: () => Promise<{ contentType: string; body: string }>;
  /** Dependency checks for /readyz; each resolves true when reachable. */
  readiness: Record<string, () => Promise<boolean>>;
  /** Extra fastify plugins registered first (OpenTelemetry). */
  plugins?: ReadonlyArray<(app: FastifyInstance) => Promise<void> | void>;
  onHttpResponse?: (route: string, statusCode: number) => void;
  /**
   * Answer plain 2026-07-28 tools/calls without the SDK's per-request machinery (ADR 0015);
   * default true. Off, the SDK serves every request.
   */
  mcpFastPath?: boolean;
  /** The plan and search views for clients that negotiate MCP Apps (ADR 0049); default true. */
  mcpApps?: boolean;
  /** Counts MCP requests by who served them: `fast` or `sdk`. */
  onMcpRequest?: (path: 'fast' | 'sdk') => void;
  /** OAuth: protected-resource metadata and, when embedded, the authorization server. */
  oauth?: OAuthHttp;
  /** Progress notifications and tasks for long calls. */
  longCalls?: LongCallOptions;
  /** Plan change notifications for `subscriptions/listen`, fed from PostgreSQL; none without it. */
  planSubscriptions?: PlanSubscriptions;
  /**
   * Stored items' permalinks (with a public URL): resources/read reads them, and the web app
   * (/app, with the embedded authorization server) serves their pages.
   */
  permalinks?: Permalinks;
  /** The web app's onboarding, preferences, admin and operations pages (with the embedded authorization server). */
  people?: PeoplePagesOptions;
}

/**
 * The gateway's HTTP face: `POST /mcp` (Streamable HTTP, both MCP eras), `/healthz`,
 * `/readyz`, `/metrics`, OAuth's routes, and `/documents` (uploads and originals of source documents). Stateless: everything a request needs comes with it
 * (its token), so any number of replicas can serve behind a plain load balancer.
 */
export async function buildServer(deps: GatewayDeps): Promise<FastifyInstance> {
  const { http, logger } = deps;
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    // Tool calls are logged and counted where they are made; per-request access logs would double them.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: http.bodyLimitBytes,
    trustProxy: http.trustProxy,
    requestIdHeader: false,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
    },
  });
  for (const plugin of deps.plugins ?? []) await plugin(app);
  // MCP is JSON only; without this fastify would accept text/plain and pass a string along.
  app.removeContentTypeParser('text/plain');

  app.addHook('onRequest', async (request, reply) => {
    reply.raw.setHeader('x-request-id', request.id);
    if (deps.onHttpResponse) {
      const route = request.routeOptions.url ?? 'unmatched';
      reply.raw.once('finish', () => deps.onHttpResponse?.(route, reply.raw.statusCode));
    }
  });
  app.setErrorHandler(errorHandler(http.bodyLimitBytes));
  app.setNotFoundHandler((request, reply) =>
    sendError(
      request,
      reply,
      'NOT_FOUND',
      `Not found: ${request.method} ${request.url.split('?')[0]}. The MCP endpoint is POST /mcp.`,
    ),
  );
  await app.register(rateLimit, { global: false });

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const entries = await Promise.all(
      Object.entries(deps.readiness).map(async ([name, check]) => [name, await check().catch(() => false)] as const),
    );
    const checks = Object.fromEntries(entries);
    const ready = entries.every(([, ok]) => ok);
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks });
  });
  const { metricsText } = deps;
  if (metricsText) {
    app.get('/metrics', async (_request, reply) => {
      const { contentType, body } = await metricsText();
      return reply.type(contentType).send(body);
    });
  }
  if (deps.oauth) await registerOAuthRoutes(app, deps.oauth);
  const embedded = deps.oauth?.embedded;
  if (embedded)
    await registerWebApp(app, {
      tools: deps.tools,
      provider: embedded.provider,
      db: embedded.db,
      key: embedded.csrfKey,
      people: deps.people,
    });

  const endpoint = createMcpEndpoint({
    tools: deps.tools,
    version: deps.version,
    maxRequestBodySize: http.bodyLimitBytes,
    requestStateKey: deps.requestStateKey,
    longCalls: deps.longCalls,
    onerror: (error) => logger.debug({ err: error }, 'MCP request rejected'),
    planSubscriptions: deps.planSubscriptions,
    permalinks: deps.permalinks,
    mcpApps: deps.mcpApps,
  });
  // RFC 9728: every challenge points the client at the protected-resource metadata.
  const resourceMetadata = deps.oauth ? resourceMetadataUrl(deps.oauth.resource) : undefined;
  const authentication = createAuthentication(deps.authenticator, resourceMetadata);
  registerDocumentRoutes(app, {
    tools: deps.tools,
    authentication,
    uploadLimitBytes: http.uploadLimitBytes ?? DEFAULT_UPLOAD_LIMIT_BYTES,
    rateLimitPerMinute: http.rateLimitPerMinute,
    resourceMetadata,
  });
  registerMcpRoute(app, {
    endpoint: endpoint.handler,
    tools: deps.tools,
    fastPath:
      deps.mcpFastPath === false
        ? undefined
        : createToolCallFastPath(deps.tools, endpoint.modes, quarryServerInfo(deps.version)),
    authentication,
    // The SDK's own guards (a 403 with a JSON-RPC error): the Host allow-list against DNS
    // rebinding, and the Origin check, which only a browser's request (it sends Origin) can fail.
    guards: [
      ...(http.allowedHosts.includes('*') ? [] : [hostHeaderValidation([...http.allowedHosts])]),
      originValidation([...http.allowedOrigins]),
    ],
    rateLimitPerMinute: http.rateLimitPerMinute,
    resourceMetadata,
    onMcpRequest: deps.onMcpRequest,
  });

  // Listen streams last until ended: end them before the server waits for its connections to close.
  app.addHook('preClose', async () => deps.planSubscriptions?.close());
  app.addHook('onClose', async () => {
    await endpoint.handler.close();
  });
  return app;
}
