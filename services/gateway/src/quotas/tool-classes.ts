import type { ToolDefinition } from '@quarry/contracts';

/**
 * The classes of tool calls an org's call rate is limited by (docs/adr/0061-per-org-quotas.md),
 * derived from each tool's definition, never from a list of names, so a new tool falls into its
 * class by what it is: `model` runs a model (its reply carries a ModelUsage), `search` is served by
 * the search service, `read` only reads (its read-only annotation, the `quarry:read` scope), and
 * `write` is everything else (the `quarry:write` scope).
 */
export const TOOL_CLASSES = ['read', 'write', 'search', 'model'] as const;
export type ToolClass = (typeof TOOL_CLASSES)[number];

/** The class of a tool's calls. */
export function toolClassOf(tool: ToolDefinition): ToolClass {
  if (tool.gatewayFields?.modelUsage) return 'model';
  if (tool.rpc.service.split('.').includes('search')) return 'search';
  return tool.annotations.readOnlyHint ? 'read' : 'write';
}
