import { toolCatalogue, type JsonSchema, type ToolDefinition } from '@quarry/contracts';

/** A published tool by name (throws when the catalogue has none: the test names a tool that must exist). */
export function tool(name: string): ToolDefinition {
  const found = toolCatalogue.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

export type Props = Record<string, Record<string, unknown>>;

/** The `properties` of an object schema. */
export const properties = (schema: JsonSchema): Props => (schema as { properties: Props }).properties;

/** The `required` list of an object schema ([] when absent). */
export const required = (schema: JsonSchema): string[] => (schema as { required?: string[] }).required ?? [];
