import type { Tool } from '@modelcontextprotocol/server';
import type { ToolDefinition } from '@quarry/contracts';
import type { Principal } from '../../identity/schema.js';
import { mayCall } from '../request-context.js';

/**
 * The tools the gateway serves, as derived from proto (libs/contracts): what `tools/list` shows
 * and what every other part of the endpoint asks about a tool. Nothing here names a tool: a
 * tool's behaviour comes from its definition (annotations, gateway fields, options).
 */
export interface ToolCatalogue {
  /** Every tool as `tools/list` shows it (computed once). */
  readonly listed: readonly Tool[];
  /**
   * The `tools/list` payload for one caller: the tools its allowlist names and its scopes allow.
   * A tool outside its allowlist is, to that caller, unknown.
   */
  listFor(principal: Principal): Tool[];
  /** A tool's definition; undefined when the catalogue has no such tool. */
  get(name: string): ToolDefinition | undefined;
}

export function createToolCatalogue(definitions: readonly ToolDefinition[]): ToolCatalogue {
  const byName = new Map(definitions.map((tool) => [tool.name, tool]));
  const listed: Tool[] = definitions.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    outputSchema: tool.outputSchema as Tool['outputSchema'],
    annotations: { title: tool.title, ...tool.annotations },
  }));
  return {
    listed,
    listFor: (principal) => listed.filter((tool) => mayCall(principal, byName.get(tool.name)!)),
    get: (name) => byName.get(name),
  };
}

/** Whether a tool only reads (its proto's read_only option): safe to run before its caller's revocation check lands. */
export const isReadOnly = (tool: ToolDefinition): boolean => tool.annotations.readOnlyHint;

/** Whether a tool can ask for the client's model (its rpc has the sampling fields). */
export const canSample = (tool: ToolDefinition): boolean => Boolean(tool.gatewayFields?.samplingRequest);

/**
 * What makes a call long: a long poll asked to wait (its seconds, bounded by the rpc's option), or
 * a tool that runs a model (its reply carries a ModelUsage). Every other call answers in milliseconds.
 */
export type LongCall = { kind: 'wait'; seconds: number } | { kind: 'model' };

/** Whether this call of a tool is a long one (progress notifications, tasks); undefined when it answers at once. */
export function longCallOf(tool: ToolDefinition, args: Record<string, unknown> | undefined): LongCall | undefined {
  if (tool.gatewayFields?.modelUsage) return { kind: 'model' };
  const seconds = waitSecondsOf(tool, args);
  return seconds > 0 ? { kind: 'wait', seconds } : undefined;
}

/**
 * The seconds a long poll (the rpc's `(quarry.mcp.v1.long_poll)` field) asks the service to wait,
 * held to the field's bounds; 0 for any other call.
 */
export function waitSecondsOf(tool: ToolDefinition, args: Record<string, unknown> | undefined): number {
  const { longPoll } = tool.rpc;
  const wait = longPoll ? args?.[longPoll.field] : undefined;
  return typeof wait === 'number' && wait > 0 ? Math.min(wait, longPoll!.maxSeconds) : 0;
}
