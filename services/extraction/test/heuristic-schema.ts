import { extractHeuristically, type JsonSchemaObject } from '../src/index.js';

// Shared by the offline extractor's test files (heuristic-*.test.ts): an object schema from its
// properties, and the extractor itself.

export const obj = (properties: Record<string, unknown>, required: string[] = []): JsonSchemaObject => ({
  type: 'object',
  properties,
  ...(required.length > 0 ? { required } : {}),
});

export const extract = (schema: JsonSchemaObject, text: string) => extractHeuristically(schema, text);
