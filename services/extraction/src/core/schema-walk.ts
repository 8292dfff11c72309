/**
 * Walking a JSON Schema document by its keywords: which members hold subschemas, and which hold
 * plain data (`enum`, `const`, `default`, `examples`), so a `"$ref"` inside a `const` value or a
 * property NAMED `pattern` is not mistaken for a keyword.
 */

/** Keywords whose value is an object of subschemas (the keys are names, not keywords). */
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'] as const;
/** Keywords whose value is an array of subschemas. */
const SCHEMA_ARRAYS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const;
/** Keywords whose value is one subschema. */
const SCHEMA_SINGLES = [
  'not',
  'if',
  'then',
  'else',
  'additionalProperties',
  'additionalItems',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
] as const;

export type SchemaNode = Record<string, unknown>;

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** JSON Pointer token escaping (RFC 6901). */
export function escapePointer(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function unescapePointer(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Calls `visit` for the schema and every subschema (object schemas only; `true`/`false` have no keywords). */
export function visitSchemas(schema: unknown, visit: (node: SchemaNode, pointer: string) => void, pointer = '#'): void {
  if (!isObject(schema)) return;
  visit(schema, pointer);
  for (const keyword of SCHEMA_MAPS) {
    const map = schema[keyword];
    if (!isObject(map)) continue;
    for (const [name, sub] of Object.entries(map))
      visitSchemas(sub, visit, `${pointer}/${keyword}/${escapePointer(name)}`);
  }
  for (const keyword of SCHEMA_ARRAYS) {
    const list = schema[keyword];
    if (Array.isArray(list)) list.forEach((sub, i) => visitSchemas(sub, visit, `${pointer}/${keyword}/${i}`));
  }
  for (const keyword of SCHEMA_SINGLES) visitSchemas(schema[keyword], visit, `${pointer}/${keyword}`);
  const items = schema.items;
  if (Array.isArray(items)) items.forEach((sub, i) => visitSchemas(sub, visit, `${pointer}/items/${i}`));
  else visitSchemas(items, visit, `${pointer}/items`);
  const dependencies = schema.dependencies;
  if (isObject(dependencies)) {
    for (const [name, sub] of Object.entries(dependencies))
      visitSchemas(sub, visit, `${pointer}/dependencies/${escapePointer(name)}`);
  }
}

/**
 * The subschema a local `$ref` (`#/$defs/address`) points to, following chained refs a bounded
 * number of times; undefined when it does not resolve. Anchors (`#name`) are not followed.
 */
export function resolveLocalRef(root: unknown, schema: unknown, hops = 8): unknown {
  let current = schema;
  for (let i = 0; i < hops && isObject(current) && typeof current.$ref === 'string'; i++) {
    const ref = current.$ref;
    if (!ref.startsWith('#/') && ref !== '#') return undefined;
    const tokens = ref === '#' ? [] : ref.slice(2).split('/').map(unescapePointer);
    let target: unknown = root;
    for (const token of tokens)
      target = isObject(target) || Array.isArray(target) ? (target as Record<string, unknown>)[token] : undefined;
    current = target;
  }
  return current;
}
