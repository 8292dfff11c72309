import type { Tool } from '@modelcontextprotocol/server';

/** How much research a plan is sized for (start_research's `depth`). */
export const DEPTHS = ['quick', 'standard', 'deep'] as const;
export type Depth = (typeof DEPTHS)[number];

/**
 * The closed value lists prompt arguments and template variables take. Media types and step types
 * are read off the tool catalogue (the proto enums, as the tools spell them), so a prompt never
 * offers a value the tools would refuse.
 */
export interface Vocabulary {
  depths: readonly Depth[];
  /** store_research_output's mediaType. */
  mediaTypes: readonly string[];
  /** create_research_plan's steps[].stepType. */
  stepTypes: readonly string[];
}

export function vocabularyOf(tools: readonly Tool[]): Vocabulary {
  return {
    depths: DEPTHS,
    mediaTypes: enumAt(tools, 'store_research_output', ['mediaType']),
    stepTypes: enumAt(tools, 'create_research_plan', ['steps', 'items', 'stepType']),
  };
}

/** The enum of a property of a tool's input schema; fails at startup when the catalogue has none. */
function enumAt(tools: readonly Tool[], tool: string, path: readonly string[]): readonly string[] {
  let schema: unknown = tools.find((t) => t.name === tool)?.inputSchema;
  for (const key of path) {
    const node = schema as { properties?: Record<string, unknown>; items?: unknown } | undefined;
    schema = key === 'items' ? node?.items : node?.properties?.[key];
  }
  const values = (schema as { enum?: unknown } | undefined)?.enum;
  if (!Array.isArray(values) || !values.every((v) => typeof v === 'string'))
    throw new Error(`The tool catalogue has no enum at ${tool}.${path.join('.')}: prompts cannot offer its values`);
  return Object.freeze([...values]);
}
