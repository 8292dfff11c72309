import { toNodeHandler } from '@modelcontextprotocol/node';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { insufficientScope, jsonRpcIdOf } from '../errors.js';
import type { ToolCallFastPath, PlainToolCall } from '../mcp/fast-path.js';
import { attachCaller, mayUse } from '../mcp/request-context.js';
import { scopeShortfall } from '../mcp/required-scope.js';
import type { Tools } from '../mcp/tools/call.js';
import { isReadOnly } from '../mcp/tools/catalogue.js';
import type { Principal } from '../identity/schema.js';
import type { Authentication } from './authentication.js';
import { sendRefusal } from './error-replies.js';

export interface McpRouteOptions {
  /** The SDK's endpoint (both eras), behind the checks of this route. */
  endpoint: Parameters<typeof toNodeHandler>[0];
  tools: Tools;
  fastPath?: ToolCallFastPath;
  authentication: Authentication;
  /** Hooks that refuse a request before it is authenticated (Host and Origin guards). */
  guards: ReadonlyArray<(request: FastifyRequest, reply: FastifyReply) => Promise<unknown>>;
  rateLimitPerMinute: number;
  /** The protected-resource metadata URL every challenge points at (RFC 9728), when OAuth is on. */
  resourceMetadata?: string;
  onMcpRequest?: (path: 'fast' | 'sdk') => void;
}

/**
 * `POST /mcp` (and GET/DELETE, which the SDK answers). A request from a refused Host or Origin or
 * without a valid token is answered before its body is read; every later refusal (an outage, the
 * rate limit, a missing scope) once it is read, with the request's id. Then a plain 2026-07-28
 * tools/call goes the fast path (ADR 0015), everything else to the SDK.
 */
export function registerMcpRoute(app: FastifyInstance, options: McpRouteOptions): void {
  const { tools, fastPath, authentication } = options;
  const mcp = toNodeHandler(options.endpoint);

  /** Answers 403 when the request needs a scope its credential lacks; true when it did. */
  const refusedForScope = (request: FastifyRequest, reply: FastifyReply, principal: Principal) => {
    const shortfall = scopeShortfall(request.body, principal, tools.catalogue);
    if (!shortfall) return false;
    sendRefusal(
      reply,
      insufficientScope(shortfall.scope, shortfall.message, options.resourceMetadata, jsonRpcIdOf(request.body)),
    );
    return true;
  };

  // A client that goes away cancels its call (a long poll stops waiting, the rpc is cancelled).
  const abortOnClose = (reply: FastifyReply, controller: AbortController) =>
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) controller.abort();
    });
  const sendJson = (reply: FastifyReply, body: string) =>
    reply.code(200).header('content-type', 'application/json').send(body);

  /**
   * Answers a call on the fast path; false when it must go to the SDK after all. (It says so
   * rather than returning the reply: a fastify reply is a thenable, and awaiting it waits for the
   * response to finish.)
   */
  async function answerFast(request: FastifyRequest, reply: FastifyReply, call: PlainToolCall): Promise<boolean> {
    const requestId = String(request.id);
    const pending = request.unconfirmed;
    const tool = tools.catalogue.get(call.name);
    if (pending && tool && isReadOnly(tool)) {
      // The read runs while the revocation check is in flight; its answer waits for the verdict.
      const speculation = new AbortController();
      abortOnClose(reply, speculation);
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
        sendJson(reply, outcome.body);
        return true;
      }
    }
    const principal = await authentication.confirmedPrincipal(request, reply);
    if (!principal) return true;
    // The cached principal may have been replaced by a fresh lookup whose allowlist no longer
    // names the tool: then the SDK answers, as for an unknown tool.
    if (!mayUse(principal, call.name)) return false;
    const abort = new AbortController();
    abortOnClose(reply, abort);
    sendJson(reply, await fastPath!.answer(call, { principal, requestId, signal: abort.signal }));
    return true;
  }

  app.route({
    method: ['POST', 'GET', 'DELETE'],
    url: '/mcp',
    onRequest: [...options.guards, authentication.authenticate],
    preValidation: authentication.answerUncheckedToken,
    config: {
      rateLimit: {
        max: options.rateLimitPerMinute,
        timeWindow: 60_000,
        // Counted once the body is read, so a 429 carries the request's id.
        hook: 'preValidation',
        keyGenerator: (request: FastifyRequest) =>
          (request.principal ?? request.unconfirmed?.principal)?.tokenId ?? request.ip,
        errorResponseBuilder: (_request: FastifyRequest, context: { after: string }) => ({
          statusCode: 429,
          message: `Rate limit exceeded for this token; retry in ${context.after}.`,
        }),
      },
    },
    handler: async (request, reply) => {
      const caller = (request.principal ?? request.unconfirmed?.principal)!;
      const matched = request.method === 'POST' ? fastPath?.match(request.headers, request.body) : undefined;
      // A tool outside the caller's allowlist goes the way of an unknown tool (the SDK answers it).
      if (matched && mayUse(caller, matched.name)) {
        if (refusedForScope(request, reply, caller)) return reply;
        options.onMcpRequest?.('fast');
        if (await answerFast(request, reply, matched)) return reply;
      }
      const principal = await authentication.confirmedPrincipal(request, reply);
      if (!principal) return reply;
      if (refusedForScope(request, reply, principal)) return reply;
      options.onMcpRequest?.('sdk');
      attachCaller(request.raw, principal, String(request.id));
      // The SDK writes the response itself: headers set on the reply so far (the rate limit's)
      // must be on the raw response before fastify lets go of it.
      for (const [name, value] of Object.entries(reply.getHeaders()))
        if (value !== undefined) reply.raw.setHeader(name, value);
      reply.hijack();
      await mcp(request.raw, reply.raw, request.body);
    },
  });
}
