import { createHash } from 'node:crypto';
import type {
  CallToolResult,
  ClientCapabilities,
  InputRequiredResult,
  ServerContext,
} from '@modelcontextprotocol/server';
import type { ToolDefinition } from '@quarry/contracts';
import type { TaskRunner } from '../tasks/task-runner.js';
import type { Caller } from '../request-context.js';
import type { Tools } from '../tools/call.js';

/**
 * What decides how a tools/call runs, read off the SDK's request context or, on the fast path,
 * off the raw request: both must see the same call to pick the same mode.
 */
export interface CallShape {
  tool: ToolDefinition;
  args: Record<string, unknown>;
  era: 'legacy' | 'modern';
  /** The client's capabilities as this request declares them (2026-07-28; none on 2025-era requests). */
  capabilities: ClientCapabilities | undefined;
  /** The request's `_meta.progressToken`: the client wants progress notifications. */
  progressToken: string | number | undefined;
  /** The request carries a requestState: it is the retry of an input-required round trip. */
  retry: boolean;
}

/** A call as a mode runs it: its shape, its caller and the SDK's context of the request. */
export interface ModeCall extends CallShape {
  caller: Caller;
  ctx: ServerContext;
  /** SHA-256 of the arguments (canonical JSON), computed at most once: a round trip's state is bound to it. */
  argsHash(): string;
}

/**
 * What a mode answers: a tool result (the endpoint projects it against the tool's output schema,
 * as the SDK does for every tool result), or an answer of another kind sent as it is (an
 * input-required result, a created task).
 */
export type ModeAnswer = { result: CallToolResult } | { answer: InputRequiredResult | Record<string, unknown> };

/** One way a tool call can run: plain, with progress, as a task, bounded, or with a question to the client. */
export interface CallMode {
  readonly name: string;
  /** Whether this mode runs the call; the list is asked in order and the first that applies runs it. */
  appliesTo(call: CallShape): boolean;
  run(call: ModeCall): Promise<ModeAnswer>;
}

/** How long a round trip's signed state stays valid: a model answers in minutes, a person in their own time. */
export type StateLifetime = 'model' | 'person';

/** What the modes are built from: one bag, so a new mode takes what it needs from here. */
export interface CallModeDeps {
  tools: Tools;
  /**
   * Signs the requestState of an input-required round trip, bound to the token and the method;
   * every replica verifies it (the retry may reach another one).
   */
  mintState(state: object, ctx: ServerContext, lifetime: StateLifetime): Promise<string>;
  /** How often a long call reports progress to a client that sent a progress token (default 5 s). */
  progressIntervalMs?: number;
  /** Runs calls of tools that run a model as MCP tasks, for clients that declare the extension. */
  tasks?: TaskRunner;
  /** The longest a tool call may hold a 2025-era client (QUARRY_MCP_CALL_BOUND); unbounded without it. */
  callBoundMs?: number;
}

/** The hash a round trip binds its state to: key order does not matter, a client may rebuild the object. */
export function argumentsHash(args: unknown): string {
  return createHash('sha256')
    .update(canonicalJson(args ?? {}))
    .digest('base64url');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
