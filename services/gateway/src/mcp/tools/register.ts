import type { CallToolResult, Server } from '@modelcontextprotocol/server';
import type { McpApps } from '../apps/mcp-apps.js';
import { argumentsHash, type CallMode, type CallShape } from '../call-modes/call-mode.js';
import { modeFor } from '../call-modes/modes.js';
import { callerOf, clientCapabilitiesOf } from '../request-context.js';
import type { Tools } from './call.js';

/**
 * tools/list and tools/call on one per-request server. A call runs in the first of the call
 * modes that applies to it (call-modes/modes.ts); a tool result is projected against the tool's
 * output schema as the SDK does for every tool result, an input-required result or a created
 * task goes out as it is.
 */
export function registerTools(
  server: Server,
  tools: Tools,
  modes: readonly CallMode[],
  era: 'legacy' | 'modern',
  apps?: McpApps,
): void {
  server.setRequestHandler('tools/list', (_request, ctx) => {
    const listed = tools.catalogue.listFor(callerOf(ctx).principal);
    // The plan and search tools name their ui:// view for a client that negotiated MCP Apps.
    return { tools: apps && era === 'modern' ? apps.listTools(listed, clientCapabilitiesOf(ctx)) : listed };
  });
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const caller = callerOf(ctx);
    const { name, arguments: args = {} } = request.params;
    const tool = tools.resolve(name, args, caller);
    const token = ctx.mcpReq._meta?.progressToken;
    const shape: CallShape = {
      tool,
      args,
      era,
      capabilities: clientCapabilitiesOf(ctx),
      progressToken: typeof token === 'string' || typeof token === 'number' ? token : undefined,
      retry: ctx.mcpReq.requestState() !== undefined,
    };
    // Hashed at most once, and only when a round trip is checked or started.
    let hash: string | undefined;
    const answer = await modeFor(modes, shape).run({
      ...shape,
      caller,
      ctx,
      argsHash: () => (hash ??= argumentsHash(args)),
    });
    if ('result' in answer) return server.projectCallToolResult(answer.result, tool.outputSchema);
    // An input-required result or a created task: the SDK sends what a handler returns as it is.
    return answer.answer as CallToolResult;
  });
}
