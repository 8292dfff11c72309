import { describe, expect, it } from '@jest/globals';
import {
  checkSourceText,
  GUARD_CACHE_SIZE,
  guardSchema,
  MAX_SCHEMA_BYTES,
  MAX_SCHEMA_DEPTH,
  MAX_SOURCE_TEXT_BYTES,
  SchemaRejectedError,
  type SchemaRule,
} from '../src/index.js';

/** A guard answer (accept or reject) must come within this, whatever the schema: a guard against hangs, not a benchmark. */
const BOUND_MS = 2000;

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

const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...extra,
});

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

// One ref-free 200-property definition referenced from 200 properties: 13 KB. With Ajv's default
// `inlineRefs: true` it took 25 s and 612 MB to compile (measured); the guard compiles it bounded.
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

const invoiceSchema = {
  type: 'object',
  title: 'Invoice',
  properties: {
    invoiceNumber: { type: 'string', pattern: '^INV-\\d{4,}$' },
    issueDate: { type: 'string', format: 'date' },
    vendor: { $ref: '#/$defs/party' },
    customer: { $ref: '#/$defs/party' },
    currency: { type: 'string', enum: ['USD', 'EUR', 'GBP'] },
    items: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          description: { type: 'string', minLength: 1 },
          quantity: { type: 'integer', minimum: 1 },
          unitPrice: { type: 'number', minimum: 0 },
          date: { type: 'string', format: 'date' },
        },
        required: ['description', 'quantity'],
        additionalProperties: false,
      },
    },
    total: { type: 'number' },
    paid: { type: 'boolean' },
    notes: { type: ['string', 'null'] },
  },
  required: ['invoiceNumber', 'issueDate', 'total'],
  $defs: {
    party: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        email: { type: 'string', format: 'email' },
        website: { type: 'string', format: 'uri' },
      },
      required: ['name'],
    },
  },
};

const legitimate: [name: string, schema: Record<string, unknown>][] = [
  ['invoice (nested, arrays of objects, enums, formats, local $defs refs, nullable)', invoiceSchema],
  [
    'paper metadata',
    obj(
      {
        title: { type: 'string', description: 'Title of the paper' },
        authors: { type: 'array', items: { type: 'string' }, minItems: 1 },
        doi: { type: 'string', pattern: '^10\\.\\d{4,9}/\\S+$' },
        published: { type: 'string', format: 'date' },
        url: { type: 'string', format: 'uri' },
        keywords: { type: 'array', items: { type: 'string' }, uniqueItems: true },
      },
      { required: ['title', 'authors'] },
    ),
  ],
  [
    'event with date-time and anyOf',
    obj({
      name: { type: 'string' },
      starts: { type: 'string', format: 'date-time' },
      capacity: { anyOf: [{ type: 'integer', minimum: 0 }, { type: 'null' }] },
      contact: { type: 'string', format: 'email' },
    }),
  ],
  [
    'recursive outline through a local $ref',
    {
      ...obj({ title: { type: 'string' }, sections: { type: 'array', items: { $ref: '#/$defs/section' } } }),
      $defs: {
        section: obj({ heading: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/section' } } }),
      },
    },
  ],
  [
    'draft-07 with definitions',
    {
      $schema: 'http://json-schema.org/draft-07/schema#',
      ...obj({ a: { $ref: '#/definitions/a' } }),
      definitions: { a: { type: 'string', format: 'email' } },
    },
  ],
  [
    'a property named like keywords',
    obj({
      $ref: { type: 'string' },
      pattern: { type: 'string', const: 'x' },
      meta: { type: 'object', properties: {}, default: { $ref: 'https://not.a.ref' } },
    }),
  ],
  [
    'a safe patternProperties map',
    obj({
      scores: {
        type: 'object',
        patternProperties: { '^[a-z]{2,8}$': { type: 'number' } },
        additionalProperties: false,
      },
    }),
  ],
];

describe('guardSchema: legitimate schemas', () => {
  it.each(legitimate)('%s → accepted', async (_name, schema) => {
    const started = performance.now();
    const guarded = await guardSchema(schema);
    expect(performance.now() - started).toBeLessThan(BOUND_MS);
    expect(guarded.schema).toBe(schema);
    expect(guarded.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('accepts the same schema twice (nothing of a compiled schema stays behind)', async () => {
    const schema = { ...obj({ a: { $ref: '#/$defs/n' } }), $id: '#', $defs: { n: { type: 'string' } } };
    await guardSchema(schema);
    await expect(guardSchema(structuredClone(schema))).resolves.toBeDefined();
  });

  it('hashes the canonical JSON: key order does not matter, content does', async () => {
    const a = await guardSchema({
      type: 'object',
      required: ['x'],
      properties: { x: { type: 'string', minLength: 1 }, y: { type: 'number' } },
    });
    const b = await guardSchema({
      properties: { y: { type: 'number' }, x: { minLength: 1, type: 'string' } },
      required: ['x'],
      type: 'object',
    });
    const c = await guardSchema({
      type: 'object',
      required: ['x'],
      properties: { x: { type: 'string', minLength: 2 }, y: { type: 'number' } },
    });
    expect(a.hash).toBe(b.hash);
    expect(a.hash).not.toBe(c.hash);
  });
});

describe('validate', () => {
  it('accepts valid data', async () => {
    const { validate } = await guardSchema(invoiceSchema);
    expect(
      validate({
        invoiceNumber: 'INV-0042',
        issueDate: '2024-03-05',
        total: 1200,
        vendor: { name: 'Acme', email: 'billing@acme.example' },
        notes: null,
      }),
    ).toEqual({ valid: true });
  });

  it('reports readable errors with the paths of the offending values', async () => {
    const { validate } = await guardSchema(invoiceSchema);
    const result = validate({
      invoiceNumber: 'INV-42',
      issueDate: '5 March 2024',
      total: '1200',
      currency: 'YEN',
      vendor: { email: 'not-an-email' },
      items: [{ description: 'Widget', quantity: 2, date: '2024-13-01', colour: 'red' }],
    });
    expect(result.valid).toBe(false);
    if (result.valid) return;
    expect(result.errors).toEqual(
      expect.arrayContaining([
        '/invoiceNumber must match pattern "^INV-\\d{4,}$"',
        '/issueDate must match format "date"',
        '/total must be number',
        '/currency must be one of ["USD","EUR","GBP"]',
        "/vendor must have required property 'name'",
        '/vendor/email must match format "email"',
        "/items/0 must not have the property 'colour'",
        '/items/0/date must match format "date"',
      ]),
    );
    expect(result.paths).toEqual(
      expect.arrayContaining([
        '/invoiceNumber',
        '/issueDate',
        '/total',
        '/currency',
        '/vendor/name',
        '/vendor/email',
        '/items/0/colour',
        '/items/0/date',
      ]),
    );
  });

  it('names missing required fields at the root', async () => {
    const { validate } = await guardSchema(invoiceSchema);
    const result = validate({ invoiceNumber: 'INV-0042' });
    expect(result).toEqual({
      valid: false,
      errors: ["(root) must have required property 'issueDate'", "(root) must have required property 'total'"],
      paths: ['/issueDate', '/total'],
    });
  });

  it('caps the number of error lines', async () => {
    const { validate } = await guardSchema(obj({ list: { type: 'array', items: { type: 'integer' } } }));
    const result = validate({ list: Array.from({ length: 50 }, () => 'x') });
    expect(result.valid).toBe(false);
    if (result.valid) return;
    expect(result.errors).toHaveLength(21);
    expect(result.errors[20]).toBe('… and 30 more errors');
  });
});

describe('checkSourceText', () => {
  it('accepts text up to the limit and returns it', () => {
    expect(checkSourceText('Invoice INV-0042')).toBe('Invoice INV-0042');
    expect(checkSourceText('é'.repeat(MAX_SOURCE_TEXT_BYTES / 2))).toHaveLength(MAX_SOURCE_TEXT_BYTES / 2);
  });

  it('rejects non-text, empty text and text over the limit (counted in UTF-8 bytes)', () => {
    expect(() => checkSourceText(42)).toThrow(/not_text/);
    expect(() => checkSourceText('  \n ')).toThrow(/empty/);
    expect(() => checkSourceText('é'.repeat(MAX_SOURCE_TEXT_BYTES / 2 + 1))).toThrow(/too_large.*204802 bytes/);
  });
});

describe('guardSchema cache', () => {
  const schema = (n: number) => ({
    type: 'object',
    properties: { [`field${n}`]: { type: 'string', pattern: '^[a-z]+$' } },
  });

  it('answers a repeated schema (same content, key order aside) from the cache', async () => {
    const first = await guardSchema(schema(1));
    const again = await guardSchema(JSON.parse(JSON.stringify(schema(1))));
    const reordered = await guardSchema({
      properties: { field1: { pattern: '^[a-z]+$', type: 'string' } },
      type: 'object',
    });
    expect(again).toBe(first);
    expect(reordered).toBe(first);
    expect(again.validate({ field1: 'ok' })).toEqual({ valid: true });
  });

  it('remembers rejections too, with the same message', async () => {
    const hostile = { type: 'object', properties: { a: { type: 'string', pattern: '^(a|a)*$' } } };
    const first = await guardSchema(hostile).catch((error: unknown) => error);
    const again = await guardSchema(structuredClone(hostile)).catch((error: unknown) => error);
    expect(first).toBeInstanceOf(SchemaRejectedError);
    expect(again).toBe(first);
  });

  it('keeps at most GUARD_CACHE_SIZE schemas, dropping the least recently used', async () => {
    const kept = await guardSchema(schema(0));
    for (let n = 1; n <= GUARD_CACHE_SIZE; n++) await guardSchema(schema(10_000 + n));
    // schema(0) was the least recently used and has been dropped: guarded anew.
    const recomputed = await guardSchema(schema(0));
    expect(recomputed).not.toBe(kept);
    expect(recomputed.hash).toBe(kept.hash);
    // … and is now the most recent one, so it stays.
    expect(await guardSchema(schema(0))).toBe(recomputed);
  }, 60_000);

  it('checks shape before hashing: a cyclic object is refused, not walked forever', async () => {
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.properties = { self: cyclic };
    await expect(guardSchema(cyclic)).rejects.toBeInstanceOf(SchemaRejectedError);
  });
});
