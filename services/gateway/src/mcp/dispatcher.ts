import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { ContractError, createToolCodec, type ToolDefinition } from '@quarry/contracts';
import { type Identity, QuarryError } from '@quarry/grpc';
import type { Logger } from 'pino';
import { toolErrorFromStatus, type ToolErrorShape } from '../errors.js';
import type { Principal } from '../identity/schema.js';
import type { ToolCallLog } from '../tool-call-log.js';
import { createOutputValidator } from './validation.js';

/** Where a tool's rpc is served: a gRPC channel to the owning service, or in-process. */
export interface ToolBackend {
  unary(path: string, request: Uint8Array, call: BackendCall): Promise<Uint8Array>;
}

export interface BackendCall {
  identity: Identity;
  principal: Principal;
  deadlineMs: number;
  signal?: AbortSignal;
}

export interface CallerContext {
  principal: Principal;
  requestId: string;
  signal?: AbortSignal;
}

export interface ToolObserver {
  (tool: string, outcome: 'ok' | 'tool_error' | 'protocol_error', code: string, seconds: number): void;
}

export interface DispatcherOptions {
  catalogue: readonly ToolDefinition[];
  /** Keyed by the proto service's full name, e.g. `quarry.plan.v1.PlanService`. */
  backends: Readonly<Record<string, ToolBackend>>;
  logger: Logger;
  toolCallLog?: ToolCallLog;
  observe?: ToolObserver;
  deadlineMs?: number;
}

/** Tools whose calls are not written to the tool-call log (liveness checks). */
const UNLOGGED_TOOLS = new Set(['ping']);

function toolError(error: ToolErrorShape): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `${error.message} [${error.code}]` }],
    structuredContent: { error },
  };
}

/**
 * Turns MCP tool calls into exactly one rpc each. Everything derived from the catalogue
 * (listing, codecs with their input validators, output validators) is built here once per
 * process; a call only encodes (validating), calls, decodes and checks the reply.
 */
export function createToolDispatcher(options: DispatcherOptions) {
  const compileOutput = createOutputValidator();
  const deadlineMs = options.deadlineMs ?? 10_000;
  const entries = new Map(
    options.catalogue.map((tool) => {
      const backend = options.backends[tool.rpc.service];
      if (!backend) throw new Error(`No backend configured for ${tool.rpc.service} (tool "${tool.name}")`);
      return [
        tool.name,
        {
          tool,
          backend,
          codec: createToolCodec(tool),
          validateOutput: compileOutput(tool.outputSchema),
        },
      ] as const;
    }),
  );
  const listed: Tool[] = options.catalogue.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    outputSchema: tool.outputSchema as Tool['outputSchema'],
    annotations: { title: tool.title, ...tool.annotations },
  }));

  async function invoke(name: string, args: Record<string, unknown>, caller: CallerContext): Promise<{ result: CallToolResult; code: string }> {
    const entry = entries.get(name)!;
    let request: Uint8Array;
    try {
      request = entry.codec.encodeRequest(args);
    } catch (error) {
      if (error instanceof ContractError) {
        // The codec validated against the tool's input schema; its message names each field.
        return { result: toolError({ code: 'INVALID_ARGUMENT', retryable: false, message: error.message }), code: 'INVALID_ARGUMENT' };
      }
      throw error;
    }
    const { principal, requestId } = caller;
    // A long-poll argument (get_plan_status's waitSeconds) is time the service is asked to wait:
    // the deadline grows by it so the wait is not cut short.
    const waitSeconds = typeof args.waitSeconds === 'number' ? Math.min(Math.max(args.waitSeconds, 0), 60) : 0;
    const identity: Identity = { kind: 'user', orgId: principal.orgId, userId: principal.userId, tokenId: principal.tokenId, requestId };
    let response: Uint8Array;
    try {
      response = await entry.backend.unary(entry.tool.rpc.path, request, { identity, principal, deadlineMs: deadlineMs + waitSeconds * 1000, signal: caller.signal });
    } catch (error) {
      if (!(error instanceof QuarryError)) throw error;
      const shaped = toolErrorFromStatus(error.status, error.code, error.message, requestId, error.details);
      if (shaped.code === 'INTERNAL') options.logger.error({ err: error, tool: name, requestId }, 'service failed a tool call');
      return { result: toolError(shaped), code: shaped.code };
    }
    const structured = entry.codec.decodeResponse(response);
    if (!entry.validateOutput(structured)) {
      options.logger.error({ tool: name, requestId, errors: entry.validateOutput.errors }, 'service reply does not match the tool output schema');
      return { result: toolError(toolErrorFromStatus(13, undefined, undefined, requestId)), code: 'INTERNAL' };
    }
    return { result: { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured }, code: 'OK' };
  }

  return {
    /** The `tools/list` payload, computed once. */
    tools: listed,
    outputSchemaOf: (name: string) => entries.get(name)?.tool.outputSchema,

    async call(name: string, args: Record<string, unknown> | undefined, caller: CallerContext): Promise<CallToolResult> {
      const started = performance.now();
      const argumentBytes = args ? Buffer.byteLength(JSON.stringify(args)) : 0;
      const finish = (outcome: 'ok' | 'tool_error' | 'protocol_error', code: string) => {
        const durationMs = performance.now() - started;
        options.observe?.(name, outcome, code, durationMs / 1000);
        if (UNLOGGED_TOOLS.has(name)) return;
        options.toolCallLog?.record({
          occurredAt: new Date(),
          orgId: caller.principal.orgId,
          userId: caller.principal.userId,
          tokenId: caller.principal.tokenId,
          requestId: caller.requestId,
          tool: name.slice(0, 128),
          durationMs,
          outcome,
          errorCode: code === 'OK' ? null : code,
          argumentBytes,
        });
      };
      if (!entries.has(name)) {
        finish('protocol_error', 'UNKNOWN_TOOL');
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}. Call tools/list for the available tools.`);
      }
      try {
        const { result, code } = await invoke(name, args ?? {}, caller);
        finish(result.isError ? 'tool_error' : 'ok', code);
        return result;
      } catch (error) {
        options.logger.error({ err: error, tool: name, requestId: caller.requestId }, 'tool call failed');
        finish('tool_error', 'INTERNAL');
        return toolError(toolErrorFromStatus(13, undefined, undefined, caller.requestId));
      }
    },
  };
}

export type ToolDispatcher = ReturnType<typeof createToolDispatcher>;
