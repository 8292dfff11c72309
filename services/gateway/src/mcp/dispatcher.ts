import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import {
  ContractError,
  createToolCodec,
  type ObjectSchema,
  type ToolDefinition,
  type ToolElicitation,
} from '@quarry/contracts';
import { type Identity, QuarryError, status } from '@quarry/grpc';
import type { Logger } from 'pino';
import { toolErrorFromStatus, type ToolErrorShape } from '../errors.js';
import type { Principal } from '../identity/schema.js';
import { allows, scopeForTool } from '../identity/scopes.js';
import { mayUse } from '../identity/tool-allowlist.js';
import type { ToolCallLog, ToolCallRecord } from '../tool-call-log.js';
import { resourceLinksOf } from './resources/links.js';
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
  /** What the endpoint knows about the client's own model for this call (MCP sampling). */
  sampling?: CallerSampling;
  /**
   * Set when the principal's revocation barrier is still in flight (authenticateUnconfirmed):
   * only a read-only tool may run then, and its call is logged only once this resolves true.
   * The caller withholds the answer until it does.
   */
  confirmed?: Promise<boolean>;
}

/** The client side of MCP sampling for one tool call (see quarry/mcp/v1/sampling.proto). */
export interface CallerSampling {
  /** The client can be asked (2026-07-28 input-required round trip, sampling declared). */
  available: boolean;
  /** The client model's answer to the previous round's request. */
  answer?: { text: string; model: string; stopReason: string };
  /** The service's continuation from the previous round (base64), already verified. */
  continuation?: string;
}

/** A service asked for the client's model: the endpoint answers with an input-required result. */
export interface SamplingAsk {
  systemPrompt: string;
  messages: { role: 'user' | 'assistant'; text: string }[];
  maxTokens: number;
  temperature?: number;
  /** base64, to be returned in CallerSampling.continuation on the retry. */
  continuation: string;
}

/**
 * A tool's result, or its request for the client's model. `structuredJson` is set when the result
 * is a reply's structured content: it is that content's JSON, which is also the text content,
 * the first content item (an encoder can splice it in instead of serializing the object again);
 * resource links may follow it.
 */
export type DispatchOutcome =
  | { result: CallToolResult; structuredJson?: string; sampling?: undefined }
  | { sampling: SamplingAsk; result?: undefined; structuredJson?: undefined };

/**
 * What makes a call long: a long poll asked to wait (its seconds, bounded by the rpc's option), or
 * a tool that runs a model (its reply carries a ModelUsage). Every other call answers in milliseconds.
 */
export type LongCall = { kind: 'wait'; seconds: number } | { kind: 'model' };

interface ModelUsage {
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
}

export interface ToolObserver {
  (
    tool: string,
    outcome: 'ok' | 'tool_error' | 'protocol_error' | 'input_required',
    code: string,
    seconds: number,
  ): void;
}

export interface DispatcherOptions {
  catalogue: readonly ToolDefinition[];
  /**
   * Deadline of tools that run a model (those with a ModelUsage field): a model call takes
   * seconds to minutes, where every other rpc takes milliseconds. Defaults to `deadlineMs`.
   */
  modelDeadlineMs?: number;
  /** Keyed by the proto service's full name, e.g. `quarry.plan.v1.PlanService`. */
  backends: Readonly<Record<string, ToolBackend>>;
  logger: Logger;
  toolCallLog?: ToolCallLog;
  observe?: ToolObserver;
  deadlineMs?: number;
}

/**
 * Turns MCP tool calls into exactly one rpc each: what the MCP endpoint and the tools/call fast
 * path call. Everything it answers about a tool comes from the catalogue it was built with.
 */
export interface ToolDispatcher {
  /** Every tool of the catalogue, as `tools/list` shows it (computed once). */
  readonly tools: Tool[];
  /**
   * The `tools/list` payload for one caller: the tools its allowlist names and its scopes allow.
   * A tool outside its allowlist is, to that caller, unknown (see `call`).
   */
  toolsFor(principal: Principal): Tool[];
  /** A tool's output schema (the SDK projects results against it); undefined for an unknown tool. */
  outputSchemaOf(name: string): ObjectSchema | undefined;
  /** Whether the catalogue has this tool. */
  has(name: string): boolean;
  /** Whether a tool only reads (its proto's read_only option): safe to run before its caller's revocation check lands. */
  isReadOnly(name: string): boolean;
  /** Whether a tool can ask for the client's model (its rpc has the sampling fields). */
  canSample(name: string): boolean;
  /** Whether this call of a tool is a long one (progress notifications, tasks); undefined when it answers at once. */
  longCallOf(name: string, args: Record<string, unknown> | undefined): LongCall | undefined;
  /** How a tool asks the user through the client (its rpc's elicit option); undefined when it cannot. */
  elicitationOf(name: string): ToolElicitation | undefined;
  /**
   * Validates the arguments, calls the tool's rpc and checks its reply. Bad arguments and service
   * errors come back as tool errors (`isError`); an unknown tool, or one outside the caller's
   * allowlist (refused identically, so the caller learns nothing of it), throws a JSON-RPC
   * invalid-params ProtocolError. Every call is observed and, except liveness checks, written to the tool-call log.
   */
  call(name: string, args: Record<string, unknown> | undefined, caller: CallerContext): Promise<DispatchOutcome>;
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
 * The dispatcher of a catalogue. Everything derived from the catalogue (listing, codecs with
 * their input validators, output validators) is built here once per process; a call only
 * encodes (validating), calls, decodes and checks the reply.
 */
export function createToolDispatcher(options: DispatcherOptions): ToolDispatcher {
  const compileOutput = createOutputValidator();
  const deadlineMs = options.deadlineMs ?? 10_000;
  const modelDeadlineMs = options.modelDeadlineMs ?? deadlineMs;
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

  function isReadOnly(name: string): boolean {
    return entries.get(name)?.tool.annotations?.readOnlyHint === true;
  }

  async function invoke(name: string, args: Record<string, unknown>, caller: CallerContext): Promise<Invocation> {
    const entry = entries.get(name)!;
    const { gatewayFields } = entry.tool;
    let request: Uint8Array;
    try {
      request = entry.codec.encodeRequest(
        args,
        gatewayFields?.clientSampling
          ? { [gatewayFields.clientSampling]: clientSamplingJson(caller.sampling) }
          : undefined,
      );
    } catch (error) {
      if (error instanceof ContractError) {
        // The codec validated against the tool's input schema; its message names each field.
        return {
          result: toolError({ code: 'INVALID_ARGUMENT', retryable: false, message: error.message }),
          code: 'INVALID_ARGUMENT',
        };
      }
      throw error;
    }
    const { principal, requestId } = caller;
    // A long poll (the rpc's `(quarry.mcp.v1.long_poll)` field) is time the service is asked to
    // wait: the deadline grows by it so the wait is not cut short. The codec has already held the
    // value to the field's bounds (0 to maxSeconds, from the same option).
    const { longPoll } = entry.tool.rpc;
    const wait = longPoll ? args[longPoll.field] : undefined;
    const waitSeconds = typeof wait === 'number' ? Math.min(Math.max(wait, 0), longPoll!.maxSeconds) : 0;
    const baseDeadline = gatewayFields?.modelUsage ? modelDeadlineMs : deadlineMs;
    const identity: Identity = {
      kind: 'user',
      orgId: principal.orgId,
      userId: principal.userId,
      tokenId: principal.tokenId,
      requestId,
    };
    let response: Uint8Array;
    try {
      response = await entry.backend.unary(entry.tool.rpc.path, request, {
        identity,
        principal,
        deadlineMs: baseDeadline + waitSeconds * 1000,
        signal: caller.signal,
      });
    } catch (error) {
      if (!(error instanceof QuarryError)) throw error;
      // Tokens a failed model call spent still count; they go to the log, not to the model.
      const { modelUsage, ...details } = error.details ?? {};
      const shaped = toolErrorFromStatus(
        error.status,
        error.code,
        error.message,
        requestId,
        error.details ? details : undefined,
      );
      if (shaped.code === 'INTERNAL')
        options.logger.error({ err: error, tool: name, requestId }, 'service failed a tool call');
      return { result: toolError(shaped), code: shaped.code, usage: asUsage(modelUsage) };
    }
    const structured = entry.codec.decodeResponse(response);
    const usage = gatewayFields?.modelUsage ? takeField(structured, gatewayFields.modelUsage) : undefined;
    const ask = gatewayFields?.samplingRequest ? takeField(structured, gatewayFields.samplingRequest) : undefined;
    const resource = gatewayFields?.embeddedResource
      ? takeField(structured, gatewayFields.embeddedResource)
      : undefined;
    if (ask !== undefined) {
      if (caller.sampling?.available)
        return { sampling: ask as unknown as SamplingAsk, code: 'INPUT_REQUIRED', usage: asUsage(usage) };
      options.logger.error({ tool: name, requestId }, 'service asked for sampling although the client cannot be asked');
      return {
        result: toolError(toolErrorFromStatus(status.INTERNAL, undefined, undefined, requestId)),
        code: 'INTERNAL',
      };
    }
    if (!entry.validateOutput(structured)) {
      options.logger.error(
        { tool: name, requestId, errors: entry.validateOutput.errors },
        'service reply does not match the tool output schema',
      );
      return {
        result: toolError(toolErrorFromStatus(status.INTERNAL, undefined, undefined, requestId)),
        code: 'INTERNAL',
      };
    }
    const structuredJson = JSON.stringify(structured);
    if (resource) {
      // A file the reply carries (quarry.mcp.v1.EmbeddedResource): after the JSON, as an MCP
      // embedded resource; its bytes travel once, outside structuredContent.
      const embedded = embeddedResourceOf(resource);
      const content: CallToolResult['content'] = [
        { type: 'text', text: structuredJson },
        { type: 'resource', resource: embedded },
        ...resourceLinksOf(structured, entry.tool.resourceLinks, new Set([embedded.uri])),
      ];
      return { result: { content, structuredContent: structured }, code: 'OK', usage: asUsage(usage) };
    }
    // What the result names (proto-declared fields) follows the JSON as resource links.
    const links = resourceLinksOf(structured, entry.tool.resourceLinks);
    return {
      result: { content: [{ type: 'text', text: structuredJson }, ...links], structuredContent: structured },
      structuredJson,
      code: 'OK',
      usage: asUsage(usage),
    };
  }

  return {
    tools: listed,
    toolsFor: (principal) =>
      listed.filter(
        (tool) => mayUse(principal, tool.name) && allows(principal.scopes, scopeForTool(isReadOnly(tool.name))),
      ),
    outputSchemaOf: (name) => entries.get(name)?.tool.outputSchema,
    has: (name) => entries.has(name),
    isReadOnly,
    canSample: (name) => Boolean(entries.get(name)?.tool.gatewayFields?.samplingRequest),
    longCallOf(name, args) {
      const tool = entries.get(name)?.tool;
      if (tool?.gatewayFields?.modelUsage) return { kind: 'model' };
      const longPoll = tool?.rpc.longPoll;
      const wait = longPoll ? args?.[longPoll.field] : undefined;
      if (typeof wait !== 'number' || !(wait > 0)) return undefined;
      return { kind: 'wait', seconds: Math.min(wait, longPoll!.maxSeconds) };
    },
    elicitationOf: (name) => entries.get(name)?.tool.elicitation,

    async call(name, args, caller) {
      const started = performance.now();
      const argumentBytes = args ? Buffer.byteLength(JSON.stringify(args)) : 0;
      const finish = (
        outcome: 'ok' | 'tool_error' | 'protocol_error' | 'input_required',
        code: string,
        usage?: ModelUsage,
      ) => {
        const durationMs = performance.now() - started;
        options.observe?.(name, outcome, code, durationMs / 1000);
        const log = options.toolCallLog;
        if (UNLOGGED_TOOLS.has(name) || !log) return;
        const entry: ToolCallRecord = {
          occurredAt: new Date(),
          orgId: caller.principal.orgId,
          userId: caller.principal.userId,
          tokenId: caller.principal.tokenId,
          requestId: caller.requestId,
          tool: name.slice(0, 128),
          durationMs,
          outcome,
          errorCode: code === 'OK' || code === 'INPUT_REQUIRED' ? null : code,
          argumentBytes,
          inputTokens: usage?.inputTokens ?? null,
          outputTokens: usage?.outputTokens ?? null,
        };
        const record = () => log.record(entry);
        // A call made for a principal that turns out revoked never reached its client: no record.
        if (caller.confirmed) void caller.confirmed.then((ok) => ok && record());
        else record();
      };
      if (caller.confirmed && !isReadOnly(name))
        throw new Error(`${name} is not read-only: it runs only for a confirmed principal`);
      if (!entries.has(name) || !mayUse(caller.principal, name)) {
        finish('protocol_error', 'UNKNOWN_TOOL');
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Unknown tool: ${name}. Call tools/list for the available tools.`,
        );
      }
      try {
        const outcome = await invoke(name, args ?? {}, caller);
        if (outcome.sampling) {
          finish('input_required', outcome.code, outcome.usage);
          return { sampling: outcome.sampling };
        }
        finish(outcome.result.isError ? 'tool_error' : 'ok', outcome.code, outcome.usage);
        return { result: outcome.result, structuredJson: outcome.structuredJson };
      } catch (error) {
        options.logger.error({ err: error, tool: name, requestId: caller.requestId }, 'tool call failed');
        finish('tool_error', 'INTERNAL');
        return { result: toolError(toolErrorFromStatus(status.INTERNAL, undefined, undefined, caller.requestId)) };
      }
    },
  };
}

type Invocation = { code: string; usage?: ModelUsage } & (
  | { result: CallToolResult; structuredJson?: string; sampling?: undefined }
  | { sampling: SamplingAsk; result?: undefined; structuredJson?: undefined }
);

/** ClientSampling in proto3 JSON: always sent, so a service never guesses. */
function clientSamplingJson(sampling: CallerSampling | undefined) {
  return {
    available: sampling?.available ?? false,
    ...(sampling?.answer ? { answer: sampling.answer } : {}),
    ...(sampling?.continuation ? { continuation: sampling.continuation } : {}),
  };
}

/** Removes a side-channel field from a decoded reply (it is not part of the output schema). */
function takeField(structured: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const value = structured[key];
  delete structured[key];
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
}

/** quarry.mcp.v1.EmbeddedResource in proto3 JSON (bytes as base64) → an MCP blob resource. */
function embeddedResourceOf(value: Record<string, unknown>) {
  return {
    uri: String(value.uri ?? ''),
    mimeType: String(value.mimeType ?? 'application/octet-stream'),
    blob: typeof value.blob === 'string' ? value.blob : '',
  };
}

function asUsage(value: unknown): ModelUsage | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  const tokens = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.round(n) : 0);
  return {
    provider: String(v.provider ?? ''),
    model: String(v.model ?? ''),
    inputTokens: tokens(v.inputTokens),
    outputTokens: tokens(v.outputTokens),
  };
}
