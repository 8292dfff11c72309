import { createHash } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  createMcpHandler,
  createRequestStateCodec,
  inputRequired,
  inputResponse,
  isInputRequiredResult,
  type CallToolResult,
  type McpHttpHandler,
  type ServerContext,
  Server,
} from '@modelcontextprotocol/server';
import type { Principal } from '../identity/schema.js';
import type { CallerSampling, SamplingAsk, ToolDispatcher } from './dispatcher.js';
import { SERVER_INSTRUCTIONS } from './prompts/instructions.js';
import {
  createPromptFeature,
  PROMPT_CAPABILITIES,
  PROMPTS_LIST_CACHE_HINT,
  registerPrompts,
} from './prompts/register.js';
import { RESOURCES_CAPABILITY, registerResources } from './resources/register.js';
import { withProgress } from './progress/progress-notifier.js';
import type { LongCallOptions } from './tasks/long-calls.js';
import { registerTasks, startTask, TASKS_EXTENSION } from './tasks/tasks-extension.js';
import { createElicitingCalls, type ElicitationState } from './elicitation/eliciting-call.js';
import type { PlanSubscriptions } from './subscriptions/plan-subscriptions.js';

export interface EndpointOptions {
  dispatcher: ToolDispatcher;
  version: string;
  instructions?: string;
  maxRequestBodySize: number;
  /**
   * Signs the `requestState` of input-required round trips (at least 32 bytes). Every replica
   * needs the same key: the retry may reach another one.
   */
  requestStateKey: Uint8Array;
  /** How long a sampling round trip may take before its state expires (default 600 s). */
  requestStateTtlSeconds?: number;
  /** How long a person may take to answer a form (elicitation) before its state expires (default 24 h). */
  elicitationStateTtlSeconds?: number;
  onerror?: (error: Error) => void;
  /** Progress notifications and tasks for long calls (extract_data, long polls). */
  longCalls?: LongCallOptions;
  /** Change notifications for plan resources over `subscriptions/listen` (2026-07-28); none without it. */
  planSubscriptions?: PlanSubscriptions;
}

/** Who answers: stamped on every modern result (`_meta`), by the SDK and by the fast path alike. */
export function quarryServerInfo(version: string) {
  return { name: 'quarry', title: 'Quarry', version };
}

/** What the HTTP layer attaches to `req.auth` once the bearer token is verified. */
export interface QuarryAuthExtra extends Record<string, unknown> {
  principal: Principal;
  requestId: string;
}

/** What a sampling round trip carries through the client, signed: see `samplingOf`. */
interface SamplingState {
  tool: string;
  /** SHA-256 of the call's arguments (canonical JSON): the retry must repeat them. */
  args: string;
  /** The service's continuation (base64). */
  continuation: string;
}

/** The key of the one embedded request a sampling round trip carries. */
const SAMPLING_INPUT_KEY = 'model_answer';

/**
 * The MCP endpoint for both protocol eras. The SDK wants a fresh server instance per HTTP
 * request; we give it the cheap low-level `Server` with two handlers that close over the
 * dispatcher, so no tool schema is converted or compiled per request (see ADR 0005).
 *
 * MCP sampling (ADR 0011): when a service asks for the client's own model, the call is answered
 * with an input-required result carrying one `sampling/createMessage` request and a signed
 * `requestState` (bound to the token, the tool and its arguments). The client runs its model and
 * retries the same call; the answer and the service's continuation go back to the service. Only
 * 2026-07-28 clients that declare sampling are ever asked: a 2025-era client on this stateless
 * endpoint could only be pushed a request that hangs until it times out.
 */
export function createMcpEndpoint(options: EndpointOptions): McpHttpHandler {
  const { dispatcher } = options;
  const info = quarryServerInfo(options.version);
  const bind = (ctx: ServerContext) => `${ctx.mcpReq.method}\0${ctx.http?.authInfo?.clientId ?? ''}`;
  const stateCodec = createRequestStateCodec<SamplingState | ElicitationState>({
    key: options.requestStateKey,
    ttlSeconds: options.requestStateTtlSeconds ?? 600,
    bind,
  });
  const prompts = createPromptFeature(dispatcher);
  // A person answers the review form, in their own time: its state lives longer. The expiry is in
  // the signed state, so `stateCodec.verify` (same key, same binding) checks these too.
  const reviewCodec = createRequestStateCodec<ElicitationState>({
    key: options.requestStateKey,
    ttlSeconds: options.elicitationStateTtlSeconds ?? 86_400,
    bind,
  });
  const callEliciting = createElicitingCalls({ dispatcher, mint: (state, ctx) => reviewCodec.mint(state, ctx) });
  const serverOptions = {
    capabilities: { tools: { listChanged: false }, resources: RESOURCES_CAPABILITY, ...PROMPT_CAPABILITIES },
    instructions: options.instructions ?? SERVER_INSTRUCTIONS,
    cacheHints: {
      // The list depends on the credential (its scopes and tool allowlist): only its own client may keep it.
      'tools/list': { ttlMs: 300_000, cacheScope: 'private' as const },
      'prompts/list': PROMPTS_LIST_CACHE_HINT,
    },
    requestState: { verify: stateCodec.verify },
  };
  const tasks = options.longCalls?.tasks;
  // The tasks extension is a 2026-07-28 one: only modern instances declare and serve it.
  const modernOptions = tasks
    ? { ...serverOptions, capabilities: { ...serverOptions.capabilities, extensions: { [TASKS_EXTENSION]: {} } } }
    : serverOptions;

  const handler = createMcpHandler(
    ({ era }) => {
      const server = new Server(info, era === 'modern' ? modernOptions : serverOptions);
      const subscribe = options.planSubscriptions?.capabilitiesFor(era);
      if (subscribe) server.registerCapabilities(subscribe);
      registerPrompts(server, prompts);
      if (tasks && era === 'modern') registerTasks(server, tasks);
      server.setRequestHandler('tools/list', (_request, ctx) => {
        const extra = ctx.http?.authInfo?.extra as QuarryAuthExtra | undefined;
        if (!extra) throw new Error('tools/list reached the MCP handler without an authenticated principal');
        return { tools: dispatcher.toolsFor(extra.principal) };
      });
      server.setRequestHandler('tools/call', async (request, ctx) => {
        const extra = ctx.http?.authInfo?.extra as QuarryAuthExtra | undefined;
        if (!extra) throw new Error('tools/call reached the MCP handler without an authenticated principal');
        const { name, arguments: args } = request.params;
        // Hashed at most once, and only when a round trip is checked or started.
        let hash: string | undefined;
        const argsHash = () => (hash ??= argumentsHash(args));
        if (dispatcher.elicitationOf(name)) {
          const caller = { principal: extra.principal, requestId: extra.requestId, signal: ctx.mcpReq.signal };
          const answer = await callEliciting({
            name,
            args: args ?? {},
            caller,
            modern: era === 'modern',
            argsHash,
            ctx,
          });
          return isInputRequiredResult(answer)
            ? answer
            : server.projectCallToolResult(answer, dispatcher.outputSchemaOf(name));
        }
        const sampling = dispatcher.canSample(name) ? samplingOf(era === 'modern', name, argsHash, ctx) : undefined;
        if (sampling && 'error' in sampling) return sampling.error;
        const task = await startTask(era === 'modern' ? tasks : undefined, dispatcher, {
          name,
          args,
          ctx,
          principal: extra.principal,
          requestId: extra.requestId,
          sampling,
        });
        if (task) return task as CallToolResult;
        const outcome = await withProgress(
          ctx,
          dispatcher.longCallOf(name, args),
          options.longCalls?.progressIntervalMs,
          () =>
            dispatcher.call(name, args, {
              principal: extra.principal,
              requestId: extra.requestId,
              signal: ctx.mcpReq.signal,
              sampling,
            }),
        );
        if (outcome.sampling) {
          const state: SamplingState = { tool: name, args: argsHash(), continuation: outcome.sampling.continuation };
          return inputRequired({
            inputRequests: { [SAMPLING_INPUT_KEY]: inputRequired.createMessage(createMessageParams(outcome.sampling)) },
            requestState: await stateCodec.mint(state, ctx),
          });
        }
        return server.projectCallToolResult(outcome.result, dispatcher.outputSchemaOf(name));
      });
      registerResources(server, dispatcher, era);
      return server;
    },
    {
      legacy: 'stateless',
      responseMode: 'auto',
      maxRequestBodySize: options.maxRequestBodySize,
      onerror: options.onerror,
      bus: options.planSubscriptions?.bus,
    },
  );
  return options.planSubscriptions?.serve(handler) ?? handler;
}

/** The sampling side of a call to a tool that can sample: can the client be asked, and what did it answer? */
function samplingOf(
  modern: boolean,
  tool: string,
  argsHash: () => string,
  ctx: ServerContext,
): CallerSampling | { error: CallToolResult } {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
  const available = modern && Boolean(capabilities?.sampling);
  // Verified by the codec before the handler runs (signature, expiry, token binding).
  const state = ctx.mcpReq.requestState<SamplingState>();
  if (!state) return { available };
  if (state.tool !== tool || state.args !== argsHash()) {
    return refusal(
      'SAMPLING_STATE_MISMATCH',
      'This retry carries the requestState of a different call (another tool or other arguments). Call the tool again without it.',
    );
  }
  const response = inputResponse(ctx.mcpReq.inputResponses, SAMPLING_INPUT_KEY);
  if (response.kind !== 'sampling') {
    return refusal(
      'SAMPLING_ANSWER_MISSING',
      `The retry carries no answer to the sampling request "${SAMPLING_INPUT_KEY}". Answer it with your model, or call the tool again without requestState.`,
    );
  }
  const blocks = Array.isArray(response.result.content) ? response.result.content : [response.result.content];
  const text = blocks.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
  return {
    available,
    answer: { text, model: String(response.result.model ?? ''), stopReason: String(response.result.stopReason ?? '') },
    continuation: state.continuation,
  };
}

function refusal(code: string, message: string): { error: CallToolResult } {
  return {
    error: {
      isError: true,
      content: [{ type: 'text', text: `${message} [${code}]` }],
      structuredContent: { error: { code, message, retryable: false } },
    },
  };
}

function createMessageParams(ask: SamplingAsk) {
  return {
    systemPrompt: ask.systemPrompt,
    messages: ask.messages.map((m) => ({ role: m.role, content: { type: 'text' as const, text: m.text } })),
    maxTokens: ask.maxTokens,
    ...(ask.temperature !== undefined ? { temperature: ask.temperature } : {}),
    // Extraction needs no context from other servers, and a careful model more than a fast one.
    includeContext: 'none' as const,
    modelPreferences: { intelligencePriority: 0.8, speedPriority: 0.3, costPriority: 0.3 },
  };
}

function argumentsHash(args: unknown): string {
  return createHash('sha256')
    .update(canonicalJson(args ?? {}))
    .digest('base64url');
}

// Key order must not matter: a client may rebuild the arguments object for its retry.
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
