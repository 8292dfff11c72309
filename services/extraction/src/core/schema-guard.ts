import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { isObject, visitSchemas } from './schema-walk.js';
import type { SchemaValidation } from './validation-errors.js';
import type { JsonSchemaObject } from '../types.js';

/**
 * The gate for client-supplied JSON Schemas. A schema arrives with every `extract_data` call from
 * an untrusted client and is then compiled to code (Ajv), shown to a model, and used to validate
 * data; each rule below closes one way such a schema could hurt the service:
 *
 * - `too_large`: more than 64 KiB serialized (memory, compile time, model context).
 * - `too_deep`: objects/arrays nested more than 32 levels in the schema document (recursion in
 *   every tool that walks it; ~15 levels of nested object properties, far beyond real use).
 * - `remote_ref`: a `$ref`, `$dynamicRef`, `$recursiveRef` or `$id` that is not a local `#…`
 *   reference: the service never fetches anything a schema names.
 * - `not_object_schema`: the root must be `{"type": "object", "properties": {…}}` (what tool-use
 *   APIs accept and what an extraction produces: named fields).
 * - `unsafe_pattern`: a `pattern` or `patternProperties` regex that recheck finds vulnerable to
 *   catastrophic backtracking (ReDoS; exponential or polynomial), or cannot prove safe within its
 *   time budget: the pattern runs on model output derived from the untrusted source text. Only
 *   recheck's automaton checker is used: it decides exactly and the same way under any load
 *   (its fuzzing checker's verdict depends on how much fuzzing fits in the time budget), at the
 *   price of refusing back-references and look-around, which it cannot analyse.
 * - `not_compilable`: not plain JSON, an unsupported `$schema`, an invalid regex, or rejected by
 *   Ajv in strict mode (unknown keyword or format, wrong keyword types, `required` naming a
 *   property that is not defined, …).
 * - `compile_timeout`: Ajv did not compile it within the time and memory bound (see
 *   schema/compile-probe.ts for why that bound exists).
 */

export const MAX_SCHEMA_BYTES = 64 * 1024;
export const MAX_SCHEMA_DEPTH = 32;

export type SchemaDraft = '2020-12' | 'draft-07';

/**
 * Ajv options of both compilations. `strict: true` turns every strict check on (unknown keywords
 * and formats, ignored keywords, `required` naming undefined properties, types missing where
 * keywords need them, tuples without bounds); `allowUnionTypes` then re-allows `type: ["string",
 * "null"]`, the usual way to declare a nullable field (and the form OpenAI's strict mode needs).
 */
export const AJV_OPTIONS = Object.freeze({
  strict: true,
  allErrors: true,
  allowUnionTypes: true,
  inlineRefs: false,
});

export type SchemaRule =
  | 'too_large'
  | 'too_deep'
  | 'remote_ref'
  | 'not_object_schema'
  | 'unsafe_pattern'
  | 'not_compilable'
  | 'compile_timeout';

/** A schema the guard refused. The message names the rule and says what to change: it is shown to the model as the tool error. */
export class SchemaRejectedError extends Error {
  override readonly name = 'SchemaRejectedError';
  constructor(
    readonly rule: SchemaRule,
    message: string,
  ) {
    super(`Schema rejected (${rule}): ${message}`);
  }
}

export interface GuardedSchema {
  /** The schema as given (never modified). */
  schema: JsonSchemaObject;
  draft: SchemaDraft;
  /** Hex SHA-256 of the schema's canonical JSON (key order and whitespace do not matter). */
  hash: string;
  /**
   * Validates data. Errors read `/items/0/date must match format "date"` (at most
   * MAX_VALIDATION_ERRORS of them); `paths` are the JSON Pointers of the offending values.
   */
  validate(data: unknown): SchemaValidation;
}

export interface GuardOptions {
  /** Time recheck may spend on one pattern (ms). */
  patternTimeoutMs?: number;
  /** Time recheck may spend on all patterns of a schema together (ms). */
  patternBudgetMs?: number;
  /** Time Ajv may spend compiling the schema (ms). */
  compileTimeoutMs?: number;
}

export const DEFAULT_GUARD_OPTIONS: Readonly<Required<GuardOptions>> = Object.freeze({
  patternTimeoutMs: 500,
  patternBudgetMs: 1500,
  compileTimeoutMs: 2000,
});

const DRAFTS: Readonly<Record<string, SchemaDraft>> = {
  'https://json-schema.org/draft/2020-12/schema': '2020-12',
  'https://json-schema.org/draft/2020-12/schema#': '2020-12',
  'http://json-schema.org/draft-07/schema': 'draft-07',
  'http://json-schema.org/draft-07/schema#': 'draft-07',
  'https://json-schema.org/draft-07/schema': 'draft-07',
  'https://json-schema.org/draft-07/schema#': 'draft-07',
};

const REF_KEYWORDS = ['$ref', '$dynamicRef', '$recursiveRef', '$id'] as const;

/**
 * Depth, size (as a node budget, so a huge object is not walked to the end) and plain-JSON-ness,
 * walked iteratively: a cyclic or absurdly deep object fails here instead of overflowing a stack.
 */
export function checkShape(schema: unknown): void {
  const maxNodes = MAX_SCHEMA_BYTES / 2; // every JSON value takes at least 2 bytes with its separator
  const stack: { value: unknown; depth: number }[] = [{ value: schema, depth: 1 }];
  let nodes = 0;
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (++nodes > maxNodes) {
      throw new SchemaRejectedError(
        'too_large',
        `it has more than ${maxNodes} values; the limit is ${MAX_SCHEMA_BYTES} bytes (64 KiB) serialized. Send a smaller schema.`,
      );
    }
    if (value === null || typeof value === 'string' || typeof value === 'boolean') continue;
    if (typeof value === 'number') {
      if (!Number.isFinite(value))
        throw notCompilable('it contains a number that is not finite; a schema must be plain JSON');
      continue;
    }
    const isArray = Array.isArray(value);
    if (!isArray && !isPlainObject(value))
      throw notCompilable(`it contains ${describe(value)}; a schema must be plain JSON`);
    if (depth > MAX_SCHEMA_DEPTH) {
      throw new SchemaRejectedError(
        'too_deep',
        `objects and arrays are nested more than ${MAX_SCHEMA_DEPTH} levels deep. Flatten it, or define repeated parts once under $defs and refer to them with "$ref": "#/$defs/…".`,
      );
    }
    for (const child of isArray ? (value as unknown[]) : Object.values(value as object)) {
      if (child === undefined) throw notCompilable('it contains an undefined value; a schema must be plain JSON');
      stack.push({ value: child, depth: depth + 1 });
    }
  }
}

/** An object literal or JSON.parse result, from any realm (not a Date, Map, class instance…). */
function isPlainObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Object.prototype.toString.call(value) !== '[object Object]')
    return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === null || Object.getPrototypeOf(proto) === null;
}

function describe(value: unknown): string {
  if (typeof value !== 'object' || value === null) return `a ${typeof value}`;
  const name = (value as { constructor?: { name?: string } }).constructor?.name;
  return name ? `a ${name} object` : 'an object that is not plain';
}

export function checkRoot(schema: unknown): JsonSchemaObject {
  const hint =
    'The root must be an object schema: {"type": "object", "properties": {"fieldName": {…}, …}}, with the fields to extract as properties.';
  if (!isObject(schema)) {
    const what =
      typeof schema === 'boolean'
        ? `the boolean schema ${schema}`
        : Array.isArray(schema)
          ? 'an array'
          : `a ${schema === null ? 'null' : typeof schema}`;
    throw new SchemaRejectedError('not_object_schema', `it is ${what}. ${hint}`);
  }
  if (schema.type !== 'object')
    throw new SchemaRejectedError(
      'not_object_schema',
      `its root "type" is ${JSON.stringify(schema.type) ?? 'missing'}, not "object". ${hint}`,
    );
  if (!isObject(schema.properties) || Object.keys(schema.properties).length === 0) {
    throw new SchemaRejectedError('not_object_schema', `its root has no "properties". ${hint}`);
  }
  return schema;
}

export function schemaDraft(root: JsonSchemaObject): SchemaDraft {
  if (root.$schema === undefined) return '2020-12';
  const draft = typeof root.$schema === 'string' ? DRAFTS[root.$schema] : undefined;
  if (!draft) {
    throw notCompilable(
      `"$schema": ${JSON.stringify(root.$schema)} is not supported; omit "$schema" (draft 2020-12 is assumed) or use "https://json-schema.org/draft/2020-12/schema" or "http://json-schema.org/draft-07/schema#"`,
    );
  }
  return draft;
}

export interface PatternUse {
  pattern: string;
  where: string;
}

/** Rejects non-local references and invalid regexes; returns the patterns for the ReDoS check. */
export function checkKeywords(root: JsonSchemaObject): PatternUse[] {
  const patterns: PatternUse[] = [];
  visitSchemas(root, (node, pointer) => {
    for (const keyword of REF_KEYWORDS) {
      const ref = node[keyword];
      if (ref === undefined) continue;
      if (typeof ref !== 'string' || !ref.startsWith('#')) {
        throw new SchemaRejectedError(
          'remote_ref',
          `"${keyword}": ${JSON.stringify(ref)} at ${pointer} is not a local reference. Only references inside this schema are allowed (like "#/$defs/address"); the service never fetches schemas. Put the referenced schema under "$defs" and refer to it with "#/$defs/<name>".`,
        );
      }
    }
    if (typeof node.pattern === 'string') patterns.push({ pattern: node.pattern, where: `${pointer}/pattern` });
    if (isObject(node.patternProperties)) {
      for (const key of Object.keys(node.patternProperties))
        patterns.push({ pattern: key, where: `${pointer}/patternProperties` });
    }
  });
  for (const { pattern, where } of patterns) {
    try {
      new RegExp(pattern, 'u');
    } catch (error) {
      throw notCompilable(
        `the pattern ${JSON.stringify(pattern)} at ${where} is not a valid regular expression (JavaScript, "u" flag): ${(error as Error).message}`,
      );
    }
  }
  return patterns;
}

type AnyAjv = Ajv | Ajv2020;
const ajvs = new Map<SchemaDraft, AnyAjv>();

function ajvFor(draft: SchemaDraft): AnyAjv {
  let ajv = ajvs.get(draft);
  if (!ajv) {
    ajv = draft === '2020-12' ? new Ajv2020({ ...AJV_OPTIONS }) : new Ajv({ ...AJV_OPTIONS });
    (addFormats as unknown as { default: (a: AnyAjv) => void }).default(ajv);
    ajvs.set(draft, ajv);
  }
  return ajv;
}

/**
 * Compile a schema already accepted by the guard (or by the worker probe) on this thread. One Ajv
 * per draft is kept (its meta-schema is compiled once); each schema is removed from its cache
 * right after compiling so the instance does not grow and `$id`s cannot collide between calls.
 */
export function compileHere(schema: JsonSchemaObject, draft: SchemaDraft = '2020-12'): ValidateFunction {
  const ajv = ajvFor(draft);
  try {
    return ajv.compile(schema);
  } catch (error) {
    throw notCompilable((error as Error).message);
  } finally {
    ajv.removeSchema(schema);
  }
}

export function notCompilable(detail: string): SchemaRejectedError {
  return new SchemaRejectedError(
    'not_compilable',
    `${detail}. Send a valid JSON Schema (draft 2020-12; strict: no unknown keywords or formats, "required" only names defined properties).`,
  );
}
