import { createCursorCodec } from '@quarry/cursors';
import {
  createMcpHandler,
  createRequestStateCodec,
  type McpHttpHandler,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { createMcpApps } from './apps/mcp-apps.js';
import type { CallMode, StateLifetime } from './call-modes/call-mode.js';
import { createCallModes } from './call-modes/modes.js';
import { SERVER_INSTRUCTIONS } from './prompts/instructions.js';
import {
  createPromptFeature,
  PROMPT_CAPABILITIES,
  PROMPTS_LIST_CACHE_HINT,
  registerPrompts,
} from './prompts/register.js';
import { RESOURCES_CAPABILITY, registerResources } from './resources/register.js';
import type { PlanSubscriptions } from './subscriptions/plan-subscriptions.js';
import { registerTasks, TASKS_EXTENSION } from './tasks/tasks-extension.js';
import type { TaskRunner } from './tasks/task-runner.js';
import type { Permalinks } from '../web/permalinks.js';
import type { Tools } from './tools/call.js';
import { registerTools } from './tools/register.js';

export interface EndpointOptions {
  tools: Tools;
  version: string;
  instructions?: string;
  maxRequestBodySize: number;
  /**
   * The endpoint's key (at least 32 bytes): it signs the `requestState` of input-required round
   * trips and, under a key derived from it, seals resources/list cursors. Every replica needs the
   * same key: a retry or the next page may reach another one.
   */
  requestStateKey: Uint8Array;
  /** How long a sampling round trip may take before its state expires (default 600 s). */
  requestStateTtlSeconds?: number;
  /** How long a person may take to answer a form (elicitation) before its state expires (default 24 h). */
  elicitationStateTtlSeconds?: number;
  onerror?: (error: Error) => void;
  /** Progress notifications and tasks for long calls (tools that run a model, long polls). */
  longCalls?: LongCallOptions;
  /** Change notifications for plan resources over `subscriptions/listen` (2026-07-28); none without it. */
  planSubscriptions?: PlanSubscriptions;
  /** Stored items' permalinks, which resources/read reads as their quarry:// URIs (with a public URL). */
  permalinks?: Permalinks;
  /**
   * The plan and search views inside the chat for clients that negotiate MCP Apps (ADR 0049);
   * default true. With false every client gets the plain tools and results.
   */
  mcpApps?: boolean;
}

/** How the MCP endpoint treats long calls (tools that run a model, long polls). */
export interface LongCallOptions {
  /** How often a call whose client sent a progress token reports progress (default 5 s). */
  progressIntervalMs?: number;
  /** Runs tool calls that run a model as MCP tasks for 2026-07-28 clients that declare the extension. */
  tasks?: TaskRunner;
  /**
   * The longest a tool call holds a 2025-era client (no tasks there): long polls wait less, and
   * work that takes longer answers with a job to poll. Unbounded without it.
   */
  callBoundMs?: number;
}

/** Who answers: stamped on every modern result (`_meta`), by the SDK and by the fast path alike. */
export function quarryServerInfo(version: string) {
  return { name: 'quarry', title: 'Quarry', version };
}

/** The MCP endpoint: the SDK's handler, and the call modes it runs (the fast path decides by the same list). */
export interface McpEndpoint {
  handler: McpHttpHandler;
  modes: readonly CallMode[];
}

/**
 * The MCP endpoint for both protocol eras. The SDK wants a fresh server instance per HTTP
 * request; we give it the cheap low-level `Server` with handlers that close over what was built
 * once (the tools with their codecs, the call modes, the prompts), so no tool schema is
 * converted or compiled per request (see ADR 0005). What each part serves is in its folder:
 * tools/, call-modes/, resources/, prompts/, subscriptions/, tasks/, apps/.
 */
export function createMcpEndpoint(options: EndpointOptions): McpEndpoint {
  const { tools } = options;
  const tasks = options.longCalls?.tasks;
  // A round trip's state is bound to the method and the token. Both codecs share key and binding:
  // the expiry is in the signed state, so the one verifier the SDK calls checks either.
  const bind = (ctx: ServerContext) => `${ctx.mcpReq.method}\0${ctx.http?.authInfo?.clientId ?? ''}`;
  const codecs = {
    model: createRequestStateCodec<object>({
      key: options.requestStateKey,
      ttlSeconds: options.requestStateTtlSeconds ?? 600,
      bind,
    }),
    person: createRequestStateCodec<object>({
      key: options.requestStateKey,
      ttlSeconds: options.elicitationStateTtlSeconds ?? 86_400,
      bind,
    }),
  } satisfies Record<StateLifetime, unknown>;
  const modes = createCallModes({
    tools,
    mintState: (state, ctx, lifetime) => codecs[lifetime].mint(state, ctx),
    progressIntervalMs: options.longCalls?.progressIntervalMs,
    tasks,
    callBoundMs: options.longCalls?.callBoundMs,
  });
  const prompts = createPromptFeature(tools);
  const listCursors = createCursorCodec(options.requestStateKey, 'gateway');
  const apps = options.mcpApps === false ? undefined : createMcpApps();
  const serverOptions = {
    capabilities: { tools: { listChanged: false }, resources: RESOURCES_CAPABILITY, ...PROMPT_CAPABILITIES },
    instructions: options.instructions ?? SERVER_INSTRUCTIONS,
    cacheHints: {
      // The list depends on the credential (its scopes and tool allowlist): only its own client may keep it.
      'tools/list': { ttlMs: 300_000, cacheScope: 'private' as const },
      'prompts/list': PROMPTS_LIST_CACHE_HINT,
    },
    requestState: { verify: codecs.model.verify },
  };
  // The tasks extension is a 2026-07-28 one: only modern instances declare and serve it.
  const modernOptions = tasks
    ? { ...serverOptions, capabilities: { ...serverOptions.capabilities, extensions: { [TASKS_EXTENSION]: {} } } }
    : serverOptions;

  const handler = createMcpHandler(
    ({ era }) => {
      const server = new Server(quarryServerInfo(options.version), era === 'modern' ? modernOptions : serverOptions);
      const subscribe = options.planSubscriptions?.capabilitiesFor(era);
      if (subscribe) server.registerCapabilities(subscribe);
      registerTools(server, tools, modes, era, apps);
      registerResources(server, tools, listCursors, era, options.permalinks, apps);
      registerPrompts(server, prompts);
      if (tasks && era === 'modern') registerTasks(server, tasks);
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
  return { handler: options.planSubscriptions?.serve(handler) ?? handler, modes };
}
