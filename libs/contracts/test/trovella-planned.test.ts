import { describe, expect, it } from '@jest/globals';
import type { JsonSchema } from '@quarry/contracts';
import { properties, required, tool } from './support/tools.js';

// Trovella's planned tools (its reference's "Tools Not Yet Built": TRO-62, the knowledge graph)
// are named there without shapes; these are the shapes Quarry's issue gives them, held like the
// reference's tools are (trovella-contract.test.ts): the names and arguments a Trovella client
// would send keep working, additions stay optional.

const PLANNED = {
  upsert_entities: {
    params: { planId: 'string', entities: 'array', relations: 'array' },
    result: {
      entities: ['id', 'name', 'type', 'created', 'changed'],
      relations: ['id', 'fromId', 'toId', 'type', 'created', 'evidenceAdded'],
      changed: [],
    },
  },
  get_entity_graph: {
    params: {
      planId: 'string',
      entityId: 'string',
      name: 'string',
      types: 'array',
      depth: 'integer',
      limit: 'integer',
      cursor: 'string',
    },
    result: {
      startIds: [],
      entities: ['id', 'name', 'type', 'aliases', 'attributes', 'distance'],
      relations: ['id', 'fromId', 'toId', 'type', 'evidence', 'evidenceCount'],
      nextCursor: [],
    },
  },
} as const;

/** The object schema of a result field: its own, or its array's items. */
const objectAt = (schema: JsonSchema): JsonSchema =>
  (schema as Record<string, unknown>).type === 'array' ? (schema as { items: JsonSchema }).items : schema;

describe('the catalogue against Trovella’s planned tools', () => {
  describe.each(Object.entries(PLANNED))('%s', (name, contract) => {
    const t = tool(name);

    it('takes the planned arguments with their types, none of them required', () => {
      const input = properties(t.inputSchema);
      for (const [param, type] of Object.entries(contract.params))
        expect({ param, type: input[param]?.type }).toEqual({ param, type });
      expect(required(t.inputSchema)).toEqual([]);
    });

    it('returns the planned result fields', () => {
      const output = properties(t.outputSchema);
      for (const [field, nested] of Object.entries(contract.result)) {
        expect({ field, present: field in output }).toEqual({ field, present: true });
        if (nested.length)
          expect(Object.keys(properties(objectAt(output[field] as JsonSchema)))).toEqual(
            expect.arrayContaining([...nested]),
          );
      }
    });
  });

  it('holds depth to 1–3 and an upsert’s evidence to 10 a relation; the graph read is read-only', () => {
    expect(properties(tool('get_entity_graph').inputSchema).depth).toMatchObject({ minimum: 1, maximum: 3 });
    const relation = objectAt(properties(tool('upsert_entities').inputSchema).relations as JsonSchema);
    expect(properties(relation).evidence).toMatchObject({ type: 'array', maxItems: 10 });
    const evidence = objectAt(properties(relation).evidence as JsonSchema);
    expect(Object.keys(properties(evidence))).toEqual(['artifactId', 'page', 'start', 'end', 'quote']);
    expect(tool('get_entity_graph').annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    expect(tool('upsert_entities').annotations).toMatchObject({ readOnlyHint: false, idempotentHint: true });
  });
});
