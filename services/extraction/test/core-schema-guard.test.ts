import { describe, expect, it } from '@jest/globals';
import {
  checkSourceText,
  GUARD_CACHE_SIZE,
  guardSchema,
  MAX_SOURCE_TEXT_BYTES,
  SchemaRejectedError,
} from '../src/index.js';
import { BOUND_MS, obj } from './schema-fixtures.js';

// The schema guard on legitimate schemas, the validator it returns, the source-text check and
// the guard's cache.

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
