import { createMcpHandler, type McpHttpHandler, Server } from '@modelcontextprotocol/server';
import type { Principal } from '../identity/schema.js';
import type { ToolDispatcher } from './dispatcher.js';

export interface EndpointOptions {
  dispatcher: ToolDispatcher;
  version: string;
  instructions?: string;
  maxRequestBodySize: number;
  onerror?: (error: Error) => void;
}

/** What the HTTP layer attaches to `req.auth` once the bearer token is verified. */
export interface QuarryAuthExtra extends Record<string, unknown> {
  principal: Principal;
  requestId: string;
}

const DEFAULT_INSTRUCTIONS =
  'Quarry holds research plans and hands out their steps, stores and searches research artifacts, and keeps an audit trail. ' +
  'Call tools/list for the available tools; every tool returns structured JSON.';

/**
 * The MCP endpoint for both protocol eras. The SDK wants a fresh server instance per HTTP
 * request; we give it the cheap low-level `Server` with two handlers that close over the
 * dispatcher, so no tool schema is converted or compiled per request (see ADR 0005).
 */
export function createMcpEndpoint(options: EndpointOptions): McpHttpHandler {
  const { dispatcher } = options;
  const info = { name: 'quarry', title: 'Quarry', version: options.version };
  const serverOptions = {
    capabilities: { tools: { listChanged: false } },
    instructions: options.instructions ?? DEFAULT_INSTRUCTIONS,
    // Every tenant sees the same tool list, so shared caches may keep it.
    cacheHints: { 'tools/list': { ttlMs: 300_000, cacheScope: 'public' as const } },
  };

  return createMcpHandler(
    () => {
      const server = new Server(info, serverOptions);
      server.setRequestHandler('tools/list', () => ({ tools: dispatcher.tools }));
      server.setRequestHandler('tools/call', async (request, ctx) => {
        const extra = ctx.http?.authInfo?.extra as QuarryAuthExtra | undefined;
        if (!extra) throw new Error('tools/call reached the MCP handler without an authenticated principal');
        const { name, arguments: args } = request.params;
        const result = await dispatcher.call(name, args, { principal: extra.principal, requestId: extra.requestId, signal: ctx.mcpReq.signal });
        return server.projectCallToolResult(result, dispatcher.outputSchemaOf(name));
      });
      return server;
    },
    { legacy: 'stateless', responseMode: 'auto', maxRequestBodySize: options.maxRequestBodySize, onerror: options.onerror },
  );
}
