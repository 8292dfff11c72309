/**
 * Quarry's OAuth scopes, for access tokens and personal access tokens alike. A read-only tool
 * (annotation `readOnlyHint`) needs `quarry:read`, any other tool `quarry:write`; `quarry:admin`
 * includes both (and is what operator-level tools will ask for).
 */
export const SCOPES = ['quarry:read', 'quarry:write', 'quarry:admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** What a personal access token gets when none are named: what every token could do before scopes. */
export const DEFAULT_TOKEN_SCOPES: readonly Scope[] = ['quarry:read', 'quarry:write'];

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
