import { beforeAll, describe, expect, it } from '@jest/globals';
import { deriveCatalogue } from '../src/catalogue/derive.js';
import type { ToolDefinition } from '../src/catalogue/types.js';
import { strictAjv } from './support/ajv.js';
import { buildFixture } from './support/buf-fixture.js';

// The fixture module (test/fixtures/proto, package quarry.fixture.v1) exercises every rule;
// these tests state the exact schemas the derivation must produce from it.

const INT32 = { type: 'integer', minimum: -2147483648, maximum: 2147483647 };
const UINT32 = { type: 'integer', minimum: 0, maximum: 4294967295 };
const INT64 = { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 };
const UINT64 = { type: 'integer', minimum: 0, maximum: 9007199254740991 };
const KIND = { type: 'string', enum: ['search', 'deep_dive'], description: 'What a thing is for.' };
const NODE = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    children: { type: 'array', items: { $ref: '#/$defs/quarry.fixture.v1.Node' } },
    kind: KIND,
  },
  additionalProperties: false,
  description: 'A tree node: recursive, so it lives in $defs.',
};
const INNER = {
  type: 'object',
  properties: { value: { type: 'string' } },
  required: ['value'],
  additionalProperties: false,
  description: 'Not recursive: inlined.',
};

const THING_INPUT = {
  type: 'object',
  properties: {
    text: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[a-z ]+$', description: 'Free text.' },
    id: { type: 'string', format: 'uuid' },
    email: { type: 'string', format: 'email' },
    url: { type: 'string', format: 'uri' },
    when: { type: 'string', format: 'date-time' },
    flag: { type: 'boolean' },
    i32: { type: 'integer', minimum: 1, maximum: 10 },
    s32: INT32,
    sf32: INT32,
    u32: { ...UINT32, exclusiveMaximum: 100 },
    f32: UINT32,
    i64: INT64,
    s64: INT64,
    sf64: INT64,
    u64: UINT64,
    f64: UINT64,
    ratio: { type: 'number', maximum: 1, exclusiveMinimum: 0 },
    score: { type: 'number', minimum: -1.5 },
    blob: { type: 'string', contentEncoding: 'base64' },
    kind: KIND,
    note: { type: 'string', description: 'Set or not.' },
    maybeKind: KIND,
    tags: { type: 'array', items: { type: 'string', minLength: 2 }, minItems: 1, maxItems: 5, uniqueItems: true },
    kinds: {
      type: 'array',
      items: { type: 'string', enum: ['search', 'deep_dive'] },
      description: 'What a thing is for.',
    },
    counts: { type: 'object', additionalProperties: INT32, minProperties: 1, maxProperties: 3 },
    kindById: {
      type: 'object',
      propertyNames: { type: 'string', pattern: '^(0|-?[1-9][0-9]*)$' },
      additionalProperties: { type: 'string', enum: ['search', 'deep_dive'] },
      description: 'What a thing is for.',
    },
    tree: { $ref: '#/$defs/quarry.fixture.v1.Node' },
    inner: INNER,
    planId: { type: 'string', description: 'Set at most one of planId, stepId.' },
    stepId: { type: 'string', description: 'Set at most one of planId, stepId.' },
    byName: { type: 'string', description: 'Set exactly one of byName, byIndex, byDefault.' },
    byIndex: { ...INT32, description: 'Set exactly one of byName, byIndex, byDefault.' },
    byDefault: { type: 'boolean', description: 'Set exactly one of byName, byIndex, byDefault.' },
    attributes: { type: 'object', maxProperties: 10 },
    payload: {},
    items: { type: 'array' },
    at: { type: 'string', format: 'date-time' },
    timeout: { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]{1,9})?s$' },
    label: { type: ['string', 'null'] },
    big: { ...INT64, type: ['integer', 'null'] },
    legacy: { type: 'string', deprecated: true },
    customJSON: { type: 'string' },
  },
  required: [
    'text',
    'id',
    'email',
    'url',
    'when',
    'flag',
    'i32',
    's32',
    'sf32',
    'u32',
    'f32',
    'i64',
    's64',
    'sf64',
    'u64',
    'f64',
    'ratio',
    'score',
    'blob',
    'kind',
    'inner',
    'legacy',
    'customJSON',
  ],
  additionalProperties: false,
  dependentSchemas: {
    planId: { properties: { stepId: false } },
    byName: { properties: { byIndex: false, byDefault: false } },
    byIndex: { properties: { byDefault: false } },
  },
  anyOf: [
    { required: ['byName'], properties: { byName: true } },
    { required: ['byIndex'], properties: { byIndex: true } },
    { required: ['byDefault'], properties: { byDefault: true } },
  ],
  $defs: { 'quarry.fixture.v1.Node': { ...NODE, required: ['name', 'kind'] } },
};

const THING_OUTPUT = {
  type: 'object',
  properties: {
    text: { type: 'string', description: 'Free text.' },
    id: { type: 'string' },
    email: { type: 'string' },
    url: { type: 'string' },
    when: { type: 'string' },
    flag: { type: 'boolean' },
    i32: INT32,
    s32: INT32,
    sf32: INT32,
    u32: UINT32,
    f32: UINT32,
    i64: INT64,
    s64: INT64,
    sf64: INT64,
    u64: UINT64,
    f64: UINT64,
    ratio: { type: 'number' },
    score: { type: 'number' },
    blob: { type: 'string', contentEncoding: 'base64' },
    kind: KIND,
    note: { type: 'string', description: 'Set or not.' },
    maybeKind: KIND,
    tags: { type: 'array', items: { type: 'string' } },
    kinds: {
      type: 'array',
      items: { type: 'string', enum: ['search', 'deep_dive'] },
      description: 'What a thing is for.',
    },
    counts: { type: 'object', additionalProperties: INT32 },
    kindById: {
      type: 'object',
      propertyNames: { type: 'string', pattern: '^(0|-?[1-9][0-9]*)$' },
      additionalProperties: { type: 'string', enum: ['search', 'deep_dive'] },
      description: 'What a thing is for.',
    },
    tree: { $ref: '#/$defs/quarry.fixture.v1.Node' },
    inner: INNER,
    planId: { type: 'string' },
    stepId: { type: 'string' },
    byName: { type: 'string' },
    byIndex: INT32,
    byDefault: { type: 'boolean' },
    attributes: { type: 'object' },
    payload: {},
    items: { type: 'array' },
    at: { type: 'string', format: 'date-time' },
    timeout: { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]{1,9})?s$' },
    label: { type: ['string', 'null'] },
    big: { ...INT64, type: ['integer', 'null'] },
    legacy: { type: 'string', deprecated: true },
    customJSON: { type: 'string' },
  },
  // Everything the codec always emits: implicit scalars, repeated and map fields. Not: enums
  // (left out when unspecified), optional fields, messages, oneof members.
  required: [
    'text',
    'id',
    'email',
    'url',
    'when',
    'flag',
    'i32',
    's32',
    'sf32',
    'u32',
    'f32',
    'i64',
    's64',
    'sf64',
    'u64',
    'f64',
    'ratio',
    'score',
    'blob',
    'tags',
    'kinds',
    'counts',
    'kindById',
    'legacy',
    'customJSON',
  ],
  additionalProperties: false,
  $defs: { 'quarry.fixture.v1.Node': { ...NODE, required: ['name', 'children'] } },
};

describe('deriveCatalogue on the fixture', () => {
  let catalogue: ToolDefinition[];
  const tool = (name: string) => catalogue.find((t) => t.name === name)!;

  beforeAll(() => {
    catalogue = deriveCatalogue(buildFixture());
  });

  it('makes a tool of every rpc with the tool option, and of nothing else, sorted by name', () => {
    expect(catalogue.map((t) => t.name)).toEqual(['delete_thing', 'get_thing', 'put_thing']);
    expect(catalogue.some((t) => t.rpc.method === 'Sync')).toBe(false);
  });

  it('takes the title and hints from the option and the description from the rpc comment', () => {
    expect(tool('put_thing')).toMatchObject({
      title: 'Put thing',
      // Paragraphs kept, whitespace normalised, buf:lint:ignore directives dropped.
      description:
        'Store a thing and return it as stored.\n\nRequest and response are the same message, so the test sees the input and output rules side by side and can round-trip a value through the codec.',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      rpc: {
        service: 'quarry.fixture.v1.FixtureService',
        method: 'PutThing',
        path: '/quarry.fixture.v1.FixtureService/PutThing',
      },
    });
    expect(tool('get_thing').annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(tool('delete_thing').annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
  });

  it('describes a request with the input rules: required scalars, constraints, oneofs, $defs for recursion', () => {
    expect(tool('put_thing').inputSchema).toEqual(THING_INPUT);
  });

  it('describes a response with the output rules: what the codec always emits is required, no constraints', () => {
    expect(tool('put_thing').outputSchema).toEqual(THING_OUTPUT);
  });

  it('inlines a non-recursive message, described by its comment, with its $defs hoisted to the root', () => {
    const { $defs, ...thing } = THING_OUTPUT;
    expect(tool('get_thing').outputSchema).toEqual({
      type: 'object',
      properties: { thing: { ...thing, description: 'Everything the derivation knows about.' } },
      additionalProperties: false,
      $defs,
    });
  });

  it('refers to the root message itself as "#"', () => {
    expect(tool('delete_thing').inputSchema).toEqual({
      type: 'object',
      properties: {
        id: { type: 'string', format: 'uuid' },
        then: { $ref: '#', description: 'Another deletion to run afterwards: the root message refers to itself.' },
      },
      required: ['id'],
      additionalProperties: false,
    });
    expect(tool('delete_thing').outputSchema).toEqual({ type: 'object', properties: {}, additionalProperties: false });
  });

  it('produces schemas that compile under Ajv strict mode', () => {
    const ajv = strictAjv();
    for (const t of catalogue) {
      expect(() => ajv.compile(t.inputSchema)).not.toThrow();
      expect(() => ajv.compile(t.outputSchema)).not.toThrow();
    }
  });

  it('is deterministic', () => {
    expect(JSON.stringify(deriveCatalogue(buildFixture()))).toBe(JSON.stringify(catalogue));
  });
});
