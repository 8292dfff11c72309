import { describe, expect, it } from '@jest/globals';
import {
  guardSchema,
  MAX_SCHEMA_BYTES,
  MAX_SCHEMA_DEPTH,
  MAX_SOURCE_TEXT_BYTES,
  SchemaRejectedError,
  type SchemaRule,
} from '../src/index.js';
import { BOUND_MS, obj } from './schema-fixtures.js';

// The schema guard against hostile schemas: each is refused with its rule, within the bound.

async function rejection(
  schema: unknown,
  options?: Parameters<typeof guardSchema>[1],
): Promise<{ error: SchemaRejectedError; ms: number }> {
  const started = performance.now();
  try {
    await guardSchema(schema, options);
  } catch (error) {
    const ms = performance.now() - started;
    if (!(error instanceof SchemaRejectedError)) throw error;
    return { error, ms };
  }
  throw new Error('the schema was accepted');
}

function nestedProperties(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < levels; i++) schema = obj({ child: schema });
  return schema;
}

function manyProperties(n: number, description = ''): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) properties[`field${i}`] = { type: 'string', ...(description ? { description } : {}) };
  return obj(properties);
}

const cyclic: Record<string, unknown> = obj({ a: { type: 'string' } });
(cyclic.properties as Record<string, unknown>).self = cyclic;

// One ref-free 200-property definition referenced from 200 properties: 13 KB. Ajv's default
// `inlineRefs: true` takes seconds and hundreds of MB to compile it (ADR 0011); the guard compiles it bounded.
function inliningBomb(): Record<string, unknown> {
  const big = manyProperties(200);
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < 200; i++) properties[`r${i}`] = { $ref: '#/$defs/big' };
  return { ...obj(properties), $defs: { big } };
}

const hostile: [name: string, schema: unknown, rule: SchemaRule, says: RegExp][] = [
  [
    'huge (3000 described fields)',
    manyProperties(3000, 'A field with a long description that adds up'),
    'too_large',
    /65536 bytes/,
  ],
  [
    'huge (100k enum values, stopped by the value budget)',
    obj({ a: { enum: Array.from({ length: 100_000 }, (_, i) => i) } }),
    'too_large',
    /values/,
  ],
  ['deep (20 nested object properties)', nestedProperties(20), 'too_deep', /nested more than 32/],
  [
    'deep (arrays nested 40 levels in a const)',
    obj({ a: { const: JSON.parse('['.repeat(40) + ']'.repeat(40)) } }),
    'too_deep',
    /\$defs/,
  ],
  ['cyclic object', cyclic, 'too_deep', /nested/],
  [
    'remote $ref (https)',
    obj({ a: { $ref: 'https://evil.example/schema.json' } }),
    'remote_ref',
    /"\$ref": "https:\/\/evil.example\/schema.json" at #\/properties\/a/,
  ],
  ['relative file $ref', obj({ a: { $ref: 'definitions.json#/address' } }), 'remote_ref', /definitions.json/],
  ['http $id', { ...obj({ a: { type: 'string' } }), $id: 'http://evil.example/root' }, 'remote_ref', /"\$id"/],
  [
    'remote $dynamicRef deep in items',
    obj({ list: { type: 'array', items: { $dynamicRef: 'https://x.example/s#meta' } } }),
    'remote_ref',
    /#\/properties\/list\/items/,
  ],
  ['non-string $ref', obj({ a: { $ref: 42 } }), 'remote_ref', /42/],
  [
    'catastrophic pattern ^(a+)+$',
    obj({ a: { type: 'string', pattern: '^(a+)+$' } }),
    'unsafe_pattern',
    /"\^\(a\+\)\+\$" at #\/properties\/a\/pattern .*exponential/,
  ],
  [
    'catastrophic patternProperties key (x+x+)+y',
    obj({ a: { type: 'object', patternProperties: { '(x+x+)+y': { type: 'string' } } } }),
    'unsafe_pattern',
    /\(x\+x\+\)\+y/,
  ],
  [
    'catastrophic propertyNames pattern (a|a)*b',
    obj({ a: { type: 'object', propertyNames: { pattern: '(a|a)*b' } } }),
    'unsafe_pattern',
    /\(a\|a\)\*b/,
  ],
  [
    'polynomial pattern ^(\\w+\\s?)*$',
    obj({ a: { type: 'string', pattern: '^(\\w+\\s?)*$' } }),
    'unsafe_pattern',
    /catastrophic backtracking/,
  ],
  [
    'polynomial email pattern ^\\S+@\\S+\\.\\S+$',
    obj({ a: { type: 'string', pattern: '^\\S+@\\S+\\.\\S+$' } }),
    'unsafe_pattern',
    /polynomial/,
  ],
  [
    'back-reference (cannot be proven safe)',
    obj({ a: { type: 'string', pattern: '^(\\w+)\\s+\\1$' } }),
    'unsafe_pattern',
    /uses a back-reference/,
  ],
  [
    'look-ahead (cannot be proven safe)',
    obj({ a: { type: 'string', pattern: '^(?=.*\\d).{8,}$' } }),
    'unsafe_pattern',
    /look-ahead/,
  ],
  ['invalid regex', obj({ a: { type: 'string', pattern: '[a-' } }), 'not_compilable', /not a valid regular expression/],
  ['array root', { type: 'array', items: { type: 'string' } }, 'not_object_schema', /root "type" is "array"/],
  ['string root', { type: 'string' }, 'not_object_schema', /"type": "object"/],
  ['object root without properties', { type: 'object' }, 'not_object_schema', /no "properties"/],
  ['boolean schema true', true, 'not_object_schema', /boolean schema true/],
  ['boolean schema false', false, 'not_object_schema', /boolean schema false/],
  ['null', null, 'not_object_schema', /a null/],
  [
    'unknown keyword (strict mode)',
    obj({ a: { type: 'string', maxLenght: 5 } }),
    'not_compilable',
    /unknown keyword: "maxLenght"/,
  ],
  ['unknown format', obj({ a: { type: 'string', format: 'zipcode' } }), 'not_compilable', /unknown format "zipcode"/],
  [
    'required names an undefined property',
    obj({ a: { type: 'string' } }, { required: ['b'] }),
    'not_compilable',
    /required property "b" is not defined/,
  ],
  ['wrong keyword type', obj({ a: { type: 'text' } }), 'not_compilable', /schema is invalid/],
  [
    'unsupported $schema',
    { ...obj({ a: { type: 'string' } }), $schema: 'http://json-schema.org/draft-04/schema#' },
    'not_compilable',
    /draft-04/,
  ],
  ['not JSON (a function)', obj({ a: { type: 'string', default: () => 1 } }), 'not_compilable', /plain JSON/],
  ['not JSON (NaN)', obj({ a: { type: 'number', maximum: Number.NaN } }), 'not_compilable', /plain JSON/],
];

describe('guardSchema: hostile schemas', () => {
  it.each(hostile)('%s → rejected with its rule, within the bound', async (_name, schema, rule, says) => {
    const { error, ms } = await rejection(schema);
    expect(error.rule).toBe(rule);
    expect(error.message).toMatch(new RegExp(`^Schema rejected \\(${rule}\\): `));
    expect(error.message).toMatch(says);
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it('stops checking patterns when the budget for all of them is spent', async () => {
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < 30; i++) properties[`f${i}`] = { type: 'string', pattern: `^[a-z]{${i + 1}}$` };
    const { error, ms } = await rejection(obj(properties), { patternBudgetMs: 0 });
    expect(error.rule).toBe('unsafe_pattern');
    expect(error.message).toMatch(/"\^\[a-z\]\{1\}\$" at #\/properties\/f0\/pattern was not checked/);
    expect(ms).toBeLessThan(BOUND_MS);
    await expect(guardSchema(obj(properties))).resolves.toBeDefined();
  });

  it('rejects a schema whose compilation exceeds the compile bound (compile_timeout)', async () => {
    const { error, ms } = await rejection(manyProperties(1500), { compileTimeoutMs: 5 });
    expect(error.rule).toBe('compile_timeout');
    expect(error.message).toMatch(/longer than 5 ms/);
    expect(ms).toBeLessThan(BOUND_MS);
    // The compiler recovers after having been stopped.
    await expect(guardSchema(manyProperties(3))).resolves.toMatchObject({ draft: '2020-12' });
  });

  it('compiles the inlining bomb that hangs Ajv defaults within the bound', async () => {
    const started = performance.now();
    const guarded = await guardSchema(inliningBomb());
    expect(performance.now() - started).toBeLessThan(BOUND_MS);
    expect(guarded.validate({ r0: { field1: 'x' } })).toEqual({ valid: true });
  });

  it('states its limits', () => {
    expect(MAX_SCHEMA_BYTES).toBe(65536);
    expect(MAX_SCHEMA_DEPTH).toBe(32);
    expect(MAX_SOURCE_TEXT_BYTES).toBe(204800);
  });
});
