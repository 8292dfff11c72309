import { toolCatalogue } from '@quarry/contracts';
import type { Principal } from './schema.js';

/**
 * A credential's tool allowlist: teams that give an agent only some tools name them on its
 * personal access token or OAuth grant. A tool outside the list is, to that caller, a tool that
 * does not exist: it is not listed and calling it is refused as unknown.
 */
const CATALOGUE_NAMES: readonly string[] = toolCatalogue.map((tool) => tool.name);

/** Whether the credential may call `tool` by its allowlist (no allowlist: every tool). */
export function mayUse(principal: Pick<Principal, 'tools'>, tool: string): boolean {
  return principal.tools === null || principal.tools.includes(tool);
}

/**
 * Checks tool names (a comma- or space-separated string, or a list) against the catalogue and
 * returns them without duplicates; throws naming the first unknown one.
 */
export function parseToolNames(value: string | readonly string[]): string[] {
  const names = (typeof value === 'string' ? value.split(/[\s,]+/) : value).map((n) => n.trim()).filter(Boolean);
  if (names.length === 0) throw new Error(`No tools given: name one or more of ${CATALOGUE_NAMES.join(', ')}.`);
  for (const name of names)
    if (!CATALOGUE_NAMES.includes(name))
      throw new Error(`Unknown tool "${name}": the tools are ${CATALOGUE_NAMES.join(', ')}.`);
  return [...new Set(names)];
}
