import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import rateLimit from '@fastify/rate-limit';
import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/fastify';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { isConnectionFailure } from '@quarry/db';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Logger } from 'pino';
import { type HttpErrorCode, httpErrors, jsonRpcErrorBody } from './errors.js';
import type { AuthFailure, TokenAuthenticator, UnconfirmedAuth } from './identity/authenticator.js';
import type { Principal } from './identity/schema.js';
import type { ToolDispatcher } from './mcp/dispatcher.js';
import { createMcpEndpoint, quarryServerInfo, type QuarryAuthExtra } from './mcp/endpoint.js';
import { createToolCallFastPath } from './mcp/fast-path.js';
import type { LongCallOptions } from './mcp/tasks/long-calls.js';
import type { PlanSubscriptions } from './mcp/subscriptions/plan-subscriptions.js';
import { allows, scopeForTool, type Scope } from './identity/scopes.js';
import { mayUse } from './identity/tool-allowlist.js';
import { type OAuthHttp, registerOAuthRoutes, resourceMetadataUrl } from './oauth/routes.js';
import { IssuerUnavailableError } from './oauth/access-tokens.js';

export interface GatewayHttpOptions {
  /** Hostnames accepted in the Host header (DNS-rebinding guard); `['*']` accepts any. */
  allowedHosts: readonly string[];
  /** Origin hostnames accepted when a browser sends `Origin`; requests without one always pass. */
  allowedOrigins: readonly string[];
  bodyLimitBytes: number;
  rateLimitPerMinute: number;
  trustProxy: boolean;
}

export interface GatewayDeps {
  http: GatewayHttpOptions;
  authenticator: Pick<TokenAuthenticator, 'authenticate' | 'authenticateUnconfirmed'>;
  dispatcher: ToolDispatcher;
  logger: Logger;
  version: string;
  /** Signs input-required round trips (MCP sampling); ≥ 32 bytes, the same on every replica. */
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
  /** Counts MCP requests by who served them: `fast` or `sdk`. */
  onMcpRequest?: (path: 'fast' | 'sdk') => void;
  /** OAuth: protected-resource metadata and, when embedded, the authorization server. */
  oauth?: OAuthHttp;
  /** Progress notifications and tasks for long calls. */
  longCalls?: LongCallOptions;
  /** Plan change notifications for `subscriptions/listen`, fed from PostgreSQL; none without it. */
  planSubscriptions?: PlanSubscriptions;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller, once its revocation check has passed. */
    principal?: Principal;
    /** A cached caller whose revocation check is still in flight (then `principal` is unset). */
    unconfirmed?: UnconfirmedAuth;
  }
}

const AUTH_MESSAGES: Record<AuthFailure, string> = {
  missing:
    'Authentication required: sign in with OAuth, or send `Authorization: Bearer qry_…` with a Quarry personal access token.',
  malformed:
    'The bearer token is not a Quarry personal access token (`qry_` followed by 43 letters and digits) or an OAuth access token (a JWT).',
  unknown: 'The bearer token is not valid.',
  audience: 'The access token was issued for another resource than this MCP endpoint.',
  expired: 'The bearer token has expired; create a new one with `quarry token create`.',
  revoked: 'The bearer token has been revoked.',
};

function sendError(reply: FastifyReply, code: HttpErrorCode, message: string, headers: Record<string, string> = {}) {
  return reply
    .code(httpErrors[code].http)
    .headers({ 'content-type': 'application/json', ...headers })
    .send(jsonRpcErrorBody(code, message));
}

/** What a 503 asks clients to wait: a restart or failover of PostgreSQL takes seconds. */
const RETRY_AFTER_SECONDS = 2;

function mapFastifyError(error: FastifyError, bodyLimitBytes: number): { code: HttpErrorCode; message: string } {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return {
        code: 'PAYLOAD_TOO_LARGE',
        message: `The request body is larger than the limit of ${bodyLimitBytes} bytes.`,
      };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Send MCP messages as `Content-Type: application/json`.' };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { code: 'INVALID_REQUEST', message: 'The request body is empty; send a JSON-RPC message.' };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { code: 'PARSE_ERROR', message: `Parse error: the body is not valid JSON (${error.message}).` };
    default:
      break;
  }
  if (error instanceof SyntaxError || error.statusCode === 400) {
    return { code: 'PARSE_ERROR', message: `Parse error: ${error.message}` };
  }
  if (error.statusCode === 413) return { code: 'PAYLOAD_TOO_LARGE', message: error.message };
  if (error.statusCode === 415) return { code: 'UNSUPPORTED_MEDIA_TYPE', message: error.message };
  if (error.statusCode === 429) return { code: 'RATE_LIMITED', message: error.message };
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500)
    return { code: 'INVALID_REQUEST', message: error.message };
  // The external issuer's keys cannot be fetched: its tokens may be good, so retry rather than 401.
  if (error instanceof IssuerUnavailableError)
    return {
      code: 'UNAVAILABLE',
      message: 'Quarry cannot reach the authorization server to check this token right now; retry in a few seconds.',
    };
  // e.g. the token lookup while PostgreSQL restarts: an outage to wait out, not a bug.
  if (isConnectionFailure(error))
    return { code: 'UNAVAILABLE', message: 'Quarry cannot reach its database right now; retry in a few seconds.' };
  return { code: 'INTERNAL', message: 'Internal error.' };
}

/**
 * The gateway's HTTP face: `POST /mcp` (Streamable HTTP, both MCP eras), `/healthz`,
 * `/readyz`, `/metrics`. Stateless: everything a request needs comes with it (its token),
 * so any number of replicas can serve behind a plain load balancer.
 */
export async function buildServer(deps: GatewayDeps): Promise<FastifyInstance> {
  const { http, logger } = deps;
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    // Tool calls are logged and counted by the dispatcher; per-request access logs would double them.
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

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const mapped = mapFastifyError(error, http.bodyLimitBytes);
    if (mapped.code === 'INTERNAL') request.log.error({ err: error }, 'unhandled error in HTTP layer');
    if (mapped.code === 'UNAVAILABLE') {
      request.log.warn(
        { err: error },
        error instanceof IssuerUnavailableError
          ? 'request failed: authorization server unreachable'
          : 'request failed: database unreachable',
      );
      return sendError(reply, mapped.code, mapped.message, { 'retry-after': String(RETRY_AFTER_SECONDS) });
    }
    return sendError(reply, mapped.code, mapped.message);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(
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

  const endpoint = createMcpEndpoint({
    dispatcher: deps.dispatcher,
    version: deps.version,
    maxRequestBodySize: http.bodyLimitBytes,
    requestStateKey: deps.requestStateKey,
    longCalls: deps.longCalls,
    onerror: (error) => logger.debug({ err: error }, 'MCP request rejected'),
    planSubscriptions: deps.planSubscriptions,
  });
  const mcp = toNodeHandler(endpoint);
  const fastPath =
    deps.mcpFastPath === false ? undefined : createToolCallFastPath(deps.dispatcher, quarryServerInfo(deps.version));
  // The SDK's own guards (a 403 with a JSON-RPC error): the Host allow-list against DNS
  // rebinding, and the Origin check, which only a browser's request (it sends Origin) can fail.
  const allowAnyHost = http.allowedHosts.includes('*');
  const guards = [
    ...(allowAnyHost ? [] : [hostHeaderValidation([...http.allowedHosts])]),
    originValidation([...http.allowedOrigins]),
  ];

  const bearerOf = (request: FastifyRequest) => {
    const header = request.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    return match?.[1] ?? (header ? 'invalid' : undefined);
  };
  // RFC 9728: every challenge points the client at the protected-resource metadata.
  const metadataParam = deps.oauth ? `, resource_metadata="${resourceMetadataUrl(deps.oauth.resource)}"` : '';
  const refuse = (reply: FastifyReply, reason: AuthFailure) => {
    const challenge =
      reason === 'missing'
        ? `Bearer realm="quarry"${metadataParam}`
        : `Bearer realm="quarry"${metadataParam}, error="invalid_token", error_description="${AUTH_MESSAGES[reason]}"`;
    return sendError(reply, 'UNAUTHENTICATED', AUTH_MESSAGES[reason], { 'www-authenticate': challenge });
  };
  /**
   * A tools/call beyond the credential's scopes: 403 naming the scope to ask for (step-up). A tool
   * outside its allowlist needs no scope: the dispatcher refuses it as unknown, like a tool that
   * does not exist, so the caller learns nothing of it.
   */
  const toolNames = new Set(deps.dispatcher.tools.map((t) => t.name));
  const scopeNeeded = (principal: Principal, tool: unknown): Scope | undefined => {
    if (typeof tool !== 'string' || !toolNames.has(tool) || !mayUse(principal, tool)) return undefined;
    const needed = scopeForTool(deps.dispatcher.isReadOnly(tool));
    return allows(principal.scopes, needed) ? undefined : needed;
  };
  const refuseScope = (reply: FastifyReply, tool: string, needed: Scope) => {
    const message = `${tool} needs the scope ${needed}, which this token does not have; authorize again with it.`;
    return sendError(reply, 'INSUFFICIENT_SCOPE', message, {
      'www-authenticate': `Bearer realm="quarry"${metadataParam}, error="insufficient_scope", scope="${needed}", error_description="${message}"`,
    });
  };
  const calledTool = (body: unknown): unknown => {
    const message = body as { method?: unknown; params?: { name?: unknown } } | null;
    return message && typeof message === 'object' && message.method === 'tools/call' ? message.params?.name : undefined;
  };

  // A cached token's revocation check (one round trip) is left in flight here: a read-only fast
  // path call overlaps it with its rpc; everything else waits for it in `confirmedPrincipal`.
  const authenticate = async (request: FastifyRequest, reply: FastifyReply) => {
    if (reply.sent || reply.raw.headersSent) return;
    const result = await deps.authenticator.authenticateUnconfirmed(bearerOf(request));
    if (!result.ok) return refuse(reply, result.reason);
    if ('confirmed' in result) request.unconfirmed = result;
    else request.principal = result.principal;
  };

  /** The caller once its revocation check passed; undefined when it failed (401 sent). */
  const confirmedPrincipal = async (request: FastifyRequest, reply: FastifyReply): Promise<Principal | undefined> => {
    const pending = request.unconfirmed;
    if (request.principal || !pending) return request.principal;
    request.unconfirmed = undefined;
    if (await pending.confirmed) return (request.principal = pending.principal);
    // The cached entry could not be vouched for: look the token up as if it had not been cached.
    const result = await deps.authenticator.authenticate(bearerOf(request));
    if (!result.ok) {
      refuse(reply, result.reason);
      return undefined;
    }
    return (request.principal = result.principal);
  };

  app.route({
    method: ['POST', 'GET', 'DELETE'],
    url: '/mcp',
    onRequest: [...guards, authenticate],
    config: {
      rateLimit: {
        max: http.rateLimitPerMinute,
        timeWindow: 60_000,
        hook: 'preParsing',
        keyGenerator: (request: FastifyRequest) =>
          (request.principal ?? request.unconfirmed?.principal)?.tokenId ?? request.ip,
        errorResponseBuilder: (_request: FastifyRequest, context: { after: string }) => ({
          statusCode: 429,
          message: `Rate limit exceeded for this token; retry in ${context.after}.`,
        }),
      },
    },
    handler: async (request, reply) => {
      const requestId = String(request.id);
      const caller = (request.principal ?? request.unconfirmed?.principal)!;
      const matched = request.method === 'POST' ? fastPath?.match(request.headers, request.body) : undefined;
      // A tool outside the caller's allowlist goes the way of an unknown tool (the SDK answers it).
      const call = matched && mayUse(caller, matched.name) ? matched : undefined;
      if (call) {
        const needed = scopeNeeded(caller, call.name);
        if (needed) return refuseScope(reply, call.name, needed);
        deps.onMcpRequest?.('fast');
        const sendJson = (body: string) => reply.code(200).header('content-type', 'application/json').send(body);
        // A client that goes away cancels its call (a long-poll stops waiting, the rpc is cancelled).
        const abortOnClose = (controller: AbortController) =>
          reply.raw.once('close', () => {
            if (!reply.raw.writableFinished) controller.abort();
          });
        const pending = request.unconfirmed;
        if (pending && deps.dispatcher.isReadOnly(call.name)) {
          // The read runs while the revocation check is in flight; its answer waits for the verdict.
          const speculation = new AbortController();
          abortOnClose(speculation);
          const confirmed = pending.confirmed.then((ok) => {
            if (!ok) speculation.abort();
            return ok;
          });
          const answered = fastPath!
            .answer(call, { principal: pending.principal, requestId, signal: speculation.signal, confirmed })
            .then(
              (body) => ({ body }),
              (error: unknown) => ({ error }),
            );
          if (await confirmed) {
            request.unconfirmed = undefined;
            request.principal = pending.principal;
            const outcome = await answered;
            if ('error' in outcome) throw outcome.error;
            return sendJson(outcome.body);
          }
        }
        const principal = await confirmedPrincipal(request, reply);
        if (!principal) return reply;
        // The cached principal may have been replaced by a fresh lookup whose allowlist no longer
        // names the tool: then the SDK path below answers, as for an unknown tool.
        if (mayUse(principal, call.name)) {
          const abort = new AbortController();
          abortOnClose(abort);
          const body = await fastPath!.answer(call, { principal, requestId, signal: abort.signal });
          return sendJson(body);
        }
      }
      const principal = await confirmedPrincipal(request, reply);
      if (!principal) return reply;
      const tool = calledTool(request.body);
      const needed = scopeNeeded(principal, tool);
      if (needed) return refuseScope(reply, String(tool), needed);
      deps.onMcpRequest?.('sdk');
      const extra: QuarryAuthExtra = { principal, requestId };
      (request.raw as IncomingMessage & { auth?: unknown }).auth = {
        token: '',
        clientId: principal.tokenId,
        scopes: [...principal.scopes],
        expiresAt: principal.expiresAt ? Math.floor(principal.expiresAt.getTime() / 1000) : undefined,
        extra,
      };
      // The SDK writes the response itself: headers set on the reply so far (the rate limit's)
      // must be on the raw response before fastify lets go of it.
      for (const [name, value] of Object.entries(reply.getHeaders()))
        if (value !== undefined) reply.raw.setHeader(name, value);
      reply.hijack();
      await mcp(request.raw, reply.raw, request.body);
    },
  });

  // Listen streams last until ended: end them before the server waits for its connections to close.
  app.addHook('preClose', async () => deps.planSubscriptions?.close());
  app.addHook('onClose', async () => {
    await endpoint.close();
  });
  return app;
}
