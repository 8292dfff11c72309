import type { CallToolResult } from '@modelcontextprotocol/server';
import { ContractError, createToolCodec, type ToolDefinition } from '@quarry/contracts';
import { type Identity, QuarryError } from '@quarry/grpc';
import type { Logger } from 'pino';
import {
  gatewayToolError,
  internalToolError,
  toolError,
  toolErrorFromStatus,
  unknownTool,
  UNKNOWN_TOOL,
} from '../../errors.js';
import type { Permalinks } from '../../web/permalinks.js';
import type { ToolCallLog } from '../../tool-call-log.js';
import { type Caller, mayUse } from '../request-context.js';
import type { ToolBackend } from './backends.js';
import { createCallRecorder, type ToolObserver } from './call-record.js';
import { createToolCatalogue, isReadOnly, type ToolCatalogue, waitSecondsOf } from './catalogue.js';
import { createOutputValidator } from './output-validation.js';
import { type CallQuotas, callQuotaError } from '../../quotas/call-quotas.js';
import { asUsage, type ModelUsage, replyParts, replyResult } from './reply.js';

/** The client side of MCP sampling for one tool call (see quarry/mcp/v1/sampling.proto). */
export interface CallerSampling {
  /** The client can be asked (2026-07-28 input-required round trip, sampling declared). */
  available: boolean;
  /** The client model's answer to the previous round's request. */
  answer?: { text: string; model: string; stopReason: string };
  /** The service's continuation from the previous round (base64), already verified. */
  continuation?: string;
}

/**
 * How long the client waits for this call (quarry/mcp/v1/call_budget.proto): the service is asked
 * to answer within `answerWithinMs` (work that takes longer answers with a job to poll), and the
 * rpc's deadline is held to `deadlineMs`, so no call holds the client longer.
 */
export interface CallBudget {
  answerWithinMs: number;
  deadlineMs: number;
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
export type ToolOutcome =
  | { result: CallToolResult; structuredJson?: string; sampling?: undefined }
  | { sampling: SamplingAsk; result?: undefined; structuredJson?: undefined };

export interface ToolsOptions {
  catalogue: readonly ToolDefinition[];
  /** Keyed by the proto service's full name, e.g. `quarry.plan.v1.PlanService`. */
  backends: Readonly<Record<string, ToolBackend>>;
  logger: Logger;
  toolCallLog?: ToolCallLog;
  observe?: ToolObserver;
  deadlineMs?: number;
  /**
   * Deadline of tools that run a model (those with a ModelUsage field): a model call takes
   * seconds to minutes, where every other rpc takes milliseconds. Defaults to `deadlineMs`.
   */
  modelDeadlineMs?: number;
  /** Stored items' permalinks, given in results instead of their addresses (with a public URL). */
  permalinks?: Permalinks;
  /** Each org's calls per minute by tool class (quotas/call-quotas.ts); none without it. */
  callQuotas?: CallQuotas;
}

/** The tools and their one way in: what the MCP handlers, the fast path, resources and prompts call. */
export interface Tools {
  readonly catalogue: ToolCatalogue;
  /**
   * The definition of a tool the caller may see. An unknown tool, or one outside the caller's
   * allowlist, is counted and refused alike with a JSON-RPC invalid-params ProtocolError.
   */
  resolve(name: string, args: Record<string, unknown> | undefined, caller: Caller): ToolDefinition;
  /**
   * Validates the arguments, calls the tool's rpc and checks its reply. Bad arguments and service
   * errors come back as tool errors (`isError`); an unknown tool, or one outside the caller's
   * allowlist (refused identically, so the caller learns nothing of it), throws a JSON-RPC
   * invalid-params ProtocolError. Every call is observed and, except liveness checks, written to
   * the tool-call log.
   */
  call(
    name: string,
    args: Record<string, unknown> | undefined,
    caller: Caller,
    sampling?: CallerSampling,
    budget?: CallBudget,
  ): Promise<ToolOutcome>;
}

type Invocation = { code: string; usage?: ModelUsage } & ToolOutcome;

/**
 * Turns MCP tool calls into exactly one rpc each. Everything derived from the catalogue (codecs
 * with their input validators, output validators) is built here once per process; a call only
 * encodes (validating), calls, decodes and checks the reply.
 */
export function createTools(options: ToolsOptions): Tools {
  const catalogue = createToolCatalogue(options.catalogue);
  const compileOutput = createOutputValidator();
  const deadlineMs = options.deadlineMs ?? 10_000;
  const modelDeadlineMs = options.modelDeadlineMs ?? deadlineMs;
  const record = createCallRecorder(options);
  const entries = new Map(
    options.catalogue.map((tool) => {
      const backend = options.backends[tool.rpc.service];
      if (!backend) throw new Error(`No backend configured for ${tool.rpc.service} (tool "${tool.name}")`);
      return [
        tool.name,
        { tool, backend, codec: createToolCodec(tool), validateOutput: compileOutput(tool.outputSchema) },
      ];
    }),
  );

  async function invoke(
    name: string,
    args: Record<string, unknown>,
    caller: Caller,
    sampling: CallerSampling | undefined,
    budget: CallBudget | undefined,
  ): Promise<Invocation> {
    const { tool, backend, codec, validateOutput } = entries.get(name)!;
    const { gatewayFields } = tool;
    const filled = {
      ...(gatewayFields?.clientSampling ? { [gatewayFields.clientSampling]: clientSamplingJson(sampling) } : {}),
      ...(budget && gatewayFields?.callBudget
        ? { [gatewayFields.callBudget]: { answerWithinMs: budget.answerWithinMs } }
        : {}),
    };
    let request: Uint8Array;
    try {
      request = codec.encodeRequest(args, Object.keys(filled).length > 0 ? filled : undefined);
    } catch (error) {
      if (!(error instanceof ContractError)) throw error;
      // The codec validated against the tool's input schema; its message names each field.
      return { result: gatewayToolError('INVALID_ARGUMENT', error.message), code: 'INVALID_ARGUMENT' };
    }
    const { principal, requestId } = caller;
    const identity: Identity = {
      kind: 'user',
      orgId: principal.orgId,
      userId: principal.userId,
      tokenId: principal.tokenId,
      requestId,
    };
    // A long poll is time the service is asked to wait: the deadline grows by it so the wait is
    // not cut short (the codec has already held the value to the field's bounds).
    const baseDeadline = gatewayFields?.modelUsage ? modelDeadlineMs : deadlineMs;
    const deadline = baseDeadline + waitSecondsOf(tool, args) * 1000;
    let response: Uint8Array;
    try {
      response = await backend.unary(tool.rpc.path, request, {
        identity,
        principal,
        deadlineMs: budget ? Math.min(deadline, budget.deadlineMs) : deadline,
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
    const parts = replyParts(tool, codec.decodeResponse(response));
    if (parts.ask !== undefined) {
      if (sampling?.available)
        return { sampling: parts.ask as unknown as SamplingAsk, code: 'INPUT_REQUIRED', usage: parts.usage };
      options.logger.error({ tool: name, requestId }, 'service asked for sampling although the client cannot be asked');
      return { result: toolError(internalToolError(requestId)), code: 'INTERNAL' };
    }
    if (!validateOutput(parts.structured)) {
      options.logger.error(
        { tool: name, requestId, errors: validateOutput.errors },
        'service reply does not match the tool output schema',
      );
      return { result: toolError(internalToolError(requestId)), code: 'INTERNAL' };
    }
    return { ...replyResult(tool, parts, options.permalinks), code: 'OK', usage: parts.usage };
  }

  function resolve(name: string, finish: ReturnType<typeof record>, caller: Caller) {
    const tool = catalogue.get(name);
    if (tool && mayUse(caller.principal, name)) return tool;
    finish('protocol_error', UNKNOWN_TOOL);
    throw unknownTool(name);
  }

  return {
    catalogue,
    resolve: (name, args, caller) => resolve(name, record(name, undefined, args, caller), caller),
    async call(name, args, caller, sampling, budget) {
      const tool = catalogue.get(name);
      const finish = record(name, tool, args, caller);
      if (caller.confirmed && !(tool && isReadOnly(tool)))
        throw new Error(`${name} is not read-only: it runs only for a confirmed principal`);
      resolve(name, finish, caller);
      try {
        const refused = await options.callQuotas?.admit(caller.principal.orgId, tool!);
        if (refused) {
          finish('tool_error', 'QUOTA_EXCEEDED');
          return { result: toolError(callQuotaError(refused)) };
        }
        const { code, usage, ...outcome } = await invoke(name, args ?? {}, caller, sampling, budget);
        finish(outcome.sampling ? 'input_required' : outcome.result.isError ? 'tool_error' : 'ok', code, usage);
        return outcome;
      } catch (error) {
        options.logger.error({ err: error, tool: name, requestId: caller.requestId }, 'tool call failed');
        finish('tool_error', 'INTERNAL');
        return { result: toolError(internalToolError(caller.requestId)) };
      }
    },
  };
}

/** ClientSampling in proto3 JSON: always sent, so a service never guesses. */
function clientSamplingJson(sampling: CallerSampling | undefined) {
  return {
    available: sampling?.available ?? false,
    ...(sampling?.answer ? { answer: sampling.answer } : {}),
    ...(sampling?.continuation ? { continuation: sampling.continuation } : {}),
  };
}
