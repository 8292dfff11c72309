import type { Principal } from '../identity/schema.js';
import type { Scope } from '../identity/scopes.js';
import { mayRead, mayUse, missingScope } from './request-context.js';
import { subscribedUris } from './subscriptions/plan-subscriptions.js';
import type { ToolCatalogue } from './tools/catalogue.js';

/** A request beyond its credential's scopes: the scope to ask for and why. */
export interface ScopeShortfall {
  scope: Scope;
  message: string;
}

const authorizeAgain = (scope: Scope) =>
  `needs the scope ${scope}, which this token does not have; authorize again with it.`;

/**
 * The scope an MCP request needs and its credential lacks, checked by the HTTP layer before the
 * request is served, so that every such request gets the same answer (errors.ts,
 * `insufficientScope`): a tool call beyond the scope of its tool, reading or listing resources,
 * a prompt that embeds a plan, and listening for changes to resources. A tool outside the caller's allowlist (or not in the
 * catalogue) needs no scope: it is refused as unknown, like a tool that does not exist, so the
 * caller learns nothing of it. Everything else (listing tools and prompts, templates, discovery)
 * needs none.
 */
export function scopeShortfall(
  body: unknown,
  principal: Principal,
  catalogue: ToolCatalogue,
): ScopeShortfall | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const { method, params } = body as { method?: unknown; params?: Record<string, unknown> };
  switch (method) {
    case 'tools/call': {
      const name = params?.name;
      const tool = typeof name === 'string' ? catalogue.get(name) : undefined;
      if (!tool || !mayUse(principal, tool.name)) return undefined;
      const scope = missingScope(principal, tool);
      return scope && { scope, message: `${tool.name} ${authorizeAgain(scope)}` };
    }
    case 'resources/read':
    case 'resources/list':
      return mayRead(principal)
        ? undefined
        : { scope: 'quarry:read', message: `Reading resources ${authorizeAgain('quarry:read')}` };
    case 'prompts/get': {
      // A prompt about a plan embeds the plan as its caller reads it.
      const planId = (params?.arguments as { planId?: unknown } | undefined)?.planId;
      if (mayRead(principal) || typeof planId !== 'string') return undefined;
      return { scope: 'quarry:read', message: `A prompt about a plan ${authorizeAgain('quarry:read')}` };
    }
    case 'subscriptions/listen': {
      const notifications = params?.notifications as { resourceSubscriptions?: unknown } | undefined;
      if (mayRead(principal) || subscribedUris(notifications?.resourceSubscriptions).length === 0) return undefined;
      return { scope: 'quarry:read', message: `Listening for plan changes ${authorizeAgain('quarry:read')}` };
    }
    default:
      return undefined;
  }
}
