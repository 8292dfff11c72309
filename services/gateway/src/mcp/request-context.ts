import type { IncomingMessage } from 'node:http';
import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type McpHandlerRequestOptions,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { ToolDefinition } from '@quarry/contracts';
import type { Principal } from '../identity/schema.js';
import { allows, type Scope, scopeForTool } from '../identity/scopes.js';
import { mayUse } from '../identity/tool-allowlist.js';

/** Whether the credential's allowlist names the tool (no allowlist: every tool). */
export { mayUse };

// The one reader of who is calling and what their client can do: the principal the HTTP layer
// verified, its scopes and tool allowlist, and the client capabilities a 2026-07-28 request
// declares in its `_meta` envelope. Every MCP handler asks here rather than reading the request.

/** Who makes a request, as every MCP handler and every tool call sees it. */
export interface Caller {
  principal: Principal;
  requestId: string;
  /** Aborts when the client goes away (the rpc is cancelled, a long poll stops waiting). */
  signal?: AbortSignal;
  /**
   * Set when the principal's revocation barrier is still in flight (a cached token on the fast
   * path): only a read-only tool may run then, and its call is logged only once this resolves
   * true. The answer is withheld until it does.
   */
  confirmed?: Promise<boolean>;
}

/** What the HTTP layer attaches to a request for the SDK (`req.auth`), once the token is verified. */
interface CallerExtra extends Record<string, unknown> {
  principal: Principal;
  requestId: string;
}

/** Hands the verified caller to the SDK, which passes it to every handler as `ctx.http.authInfo`. */
export function attachCaller(request: IncomingMessage, principal: Principal, requestId: string): void {
  const extra: CallerExtra = { principal, requestId };
  (request as IncomingMessage & { auth?: unknown }).auth = {
    token: '',
    clientId: principal.tokenId,
    scopes: [...principal.scopes],
    expiresAt: principal.expiresAt ? Math.floor(principal.expiresAt.getTime() / 1000) : undefined,
    extra,
  };
}

function callerExtra(extra: Record<string, unknown> | undefined): CallerExtra | undefined {
  return extra && 'principal' in extra ? (extra as CallerExtra) : undefined;
}

/** The caller of an MCP request; every request reaching a handler has passed authentication. */
export function callerOf(ctx: ServerContext): Caller {
  const extra = callerExtra(ctx.http?.authInfo?.extra);
  if (!extra) throw new Error(`${ctx.mcpReq.method} reached the MCP handler without an authenticated principal`);
  return { principal: extra.principal, requestId: extra.requestId, signal: ctx.mcpReq.signal };
}

/** The caller of a request the MCP handler has not parsed yet (the listen-stream wrapper); undefined without one. */
export function callerOfRequest(options: McpHandlerRequestOptions | undefined): Caller | undefined {
  const extra = callerExtra(options?.authInfo?.extra);
  return extra && { principal: extra.principal, requestId: extra.requestId };
}

/**
 * The capabilities a 2026-07-28 client declares on the request itself (`_meta` envelope); a
 * 2025-era request declares none per request. `meta` is the request's `params._meta`.
 */
export function clientCapabilitiesIn(meta: unknown): ClientCapabilities | undefined {
  if (!meta || typeof meta !== 'object') return undefined;
  const declared = (meta as Record<string, unknown>)[CLIENT_CAPABILITIES_META_KEY];
  return declared && typeof declared === 'object' ? (declared as ClientCapabilities) : undefined;
}

/** The client capabilities of an MCP request (see `clientCapabilitiesIn`). */
export function clientCapabilitiesOf(ctx: ServerContext): ClientCapabilities | undefined {
  return clientCapabilitiesIn(ctx.mcpReq.envelope);
}

/** Whether the client declared the extension `id` (2026-07-28 per-request capabilities). */
export function declaresExtension(capabilities: ClientCapabilities | undefined, id: string): boolean {
  const extensions = capabilities?.extensions as Record<string, unknown> | undefined;
  return Boolean(extensions && Object.hasOwn(extensions, id));
}

/** The scope a call of `tool` needs and the credential lacks; undefined when it has it. */
export function missingScope(principal: Principal, tool: ToolDefinition): Scope | undefined {
  const needed = scopeForTool(tool.annotations.readOnlyHint);
  return allows(principal.scopes, needed) ? undefined : needed;
}

/** Whether the credential may call `tool`: its allowlist names it and it has the scope. */
export function mayCall(principal: Principal, tool: ToolDefinition): boolean {
  return mayUse(principal, tool.name) && missingScope(principal, tool) === undefined;
}

/** Whether the credential may read what Quarry holds (resources, change notifications). */
export function mayRead(principal: Principal): boolean {
  return allows(principal.scopes, 'quarry:read');
}
