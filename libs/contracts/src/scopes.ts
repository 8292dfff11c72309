import { toolDefinitions } from './gen/catalogue.js';

/**
 * Quarry's scopes, for every credential: OAuth access tokens, personal access tokens and
 * service-account tokens. A read-only tool (annotation `readOnlyHint`) needs `quarry:read`,
 * any other tool `quarry:write`; `quarry:admin` includes both.
 */
export const SCOPES = ['quarry:read', 'quarry:write', 'quarry:admin'] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** The scope a tool call needs, from the tool's annotations. */
export function scopeForTool(readOnly: boolean): Scope {
  return readOnly ? 'quarry:read' : 'quarry:write';
}

/** Whether `granted` allows what `needed` names (admin allows everything). */
export function allows(granted: readonly string[], needed: Scope): boolean {
  return granted.includes(needed) || granted.includes('quarry:admin');
}

/** Parses a space- or comma-separated scope list; throws naming the first unknown scope. */
export function parseScopes(value: string): Scope[] {
  const names = value.split(/[\s,]+/).filter(Boolean);
  if (names.length === 0) throw new Error(`No scopes given: use ${SCOPES.join(', ')}.`);
  for (const name of names) if (!isScope(name)) throw new Error(`Unknown scope "${name}": use ${SCOPES.join(', ')}.`);
  return [...new Set(names as Scope[])];
}

const rpcScopes: ReadonlyMap<string, Scope> = new Map(
  toolDefinitions.map((tool) => [tool.rpc.path, scopeForTool(tool.annotations.readOnlyHint === true)]),
);

/**
 * The scope a direct gRPC call to `path` (`/pkg.Service/Method`) needs: the same as the tool
 * the rpc serves. Undefined for an rpc that is no tool (services' internal rpcs such as
 * `PurgePlanContent`), which only the gateway and the services themselves may call.
 */
export function scopeForRpc(path: string): Scope | undefined {
  return rpcScopes.get(path);
}
