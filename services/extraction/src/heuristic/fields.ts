import { escapePointer, isObject, resolveLocalRef } from '../core/schema-walk.js';
import { splitIdentifier, words } from '../core/text.js';
import type { JsonSchemaObject } from '../types.js';
import { fieldWords, UNIT_WORDS } from './labels.js';

/** What the extractor looks for, by the field's schema. */
export type FieldKind =
  | 'string'
  | 'date'
  | 'datetime'
  | 'email'
  | 'url'
  | 'number'
  | 'integer'
  | 'boolean'
  | 'enum'
  | 'list'
  | 'objectList'
  | 'object';

export interface FieldSpec {
  key: string;
  /** JSON Pointer from the root. */
  path: string;
  kind: FieldKind;
  schema: Record<string, unknown>;
  nullable: boolean;
  required: boolean;
  /** Word lists a document label may match: the name's words, the title's, a short description's. */
  variants: string[][];
  /** Unit words in the name (`weightKg` → kg): hints for picking a number. */
  units: string[];
  enumValues?: string[];
  /** For lists: the item's spec (key and path of the list). */
  item?: FieldSpec;
  /** For objects (and the items of object lists). */
  children?: FieldSpec[];
}

/** The fields of an object schema, nested objects and lists included. */
export function fieldSpecs(root: JsonSchemaObject, schema: unknown = root, base = ''): FieldSpec[] {
  const resolved = resolveLocalRef(root, schema);
  if (!isObject(resolved) || !isObject(resolved.properties)) return [];
  const required = new Set(Array.isArray(resolved.required) ? resolved.required : []);
  return Object.entries(resolved.properties).map(([key, sub]) =>
    spec(root, key, sub, `${base}/${escapePointer(key)}`, required.has(key)),
  );
}

function spec(root: JsonSchemaObject, key: string, schema: unknown, path: string, required: boolean): FieldSpec {
  const { schema: s, nullable } = unwrapNullable(root, schema);
  const kind = kindOf(root, s);
  const variants = [fieldWords(key)];
  if (typeof s.title === 'string') variants.push(words(s.title));
  if (typeof s.description === 'string' && words(s.description).length <= 6) variants.push(words(s.description));
  const out: FieldSpec = {
    key,
    path,
    kind,
    schema: s,
    nullable,
    required,
    variants: variants.filter((v) => v.length > 0),
    units: splitIdentifier(key)
      .split(' ')
      .filter((w) => w in UNIT_WORDS),
  };
  if (typeof s.description === 'string' && /\bpercent/i.test(s.description)) out.units.push('percent');
  if (Array.isArray(s.enum)) out.enumValues = s.enum.filter((v): v is string => typeof v === 'string');
  if (kind === 'object') out.children = fieldSpecs(root, s, path);
  if (kind === 'list' || kind === 'objectList') {
    const item = spec(root, key, s.items, path, true);
    out.item = item;
    if (kind === 'objectList') out.children = fieldSpecs(root, item.schema, path);
  }
  return out;
}

/** `type: ["string", "null"]` or `anyOf: [X, {type: "null"}]` → X, nullable. */
function unwrapNullable(
  root: JsonSchemaObject,
  schema: unknown,
): { schema: Record<string, unknown>; nullable: boolean } {
  const s = resolveLocalRef(root, schema);
  if (!isObject(s)) return { schema: {}, nullable: false };
  if (Array.isArray(s.type) && s.type.includes('null')) {
    const rest = s.type.filter((t) => t !== 'null');
    return { schema: { ...s, type: rest.length === 1 ? rest[0] : rest }, nullable: true };
  }
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = s[keyword];
    if (!Array.isArray(branches)) continue;
    const resolved = branches.map((b) => resolveLocalRef(root, b));
    const nonNull = resolved.filter((b) => !(isObject(b) && b.type === 'null'));
    if (nonNull.length === 1 && isObject(nonNull[0]))
      return { schema: { ...nonNull[0] }, nullable: nonNull.length < resolved.length };
  }
  return { schema: s, nullable: false };
}

function kindOf(root: JsonSchemaObject, s: Record<string, unknown>): FieldKind {
  if (Array.isArray(s.enum)) return 'enum';
  switch (s.type) {
    case 'object':
      return 'object';
    case 'array': {
      const items = resolveLocalRef(root, s.items);
      return isObject(items) && (items.type === 'object' || isObject(items.properties)) ? 'objectList' : 'list';
    }
    case 'boolean':
      return 'boolean';
    case 'integer':
      return 'integer';
    case 'number':
      return 'number';
    default:
      break;
  }
  switch (s.format) {
    case 'date':
      return 'date';
    case 'date-time':
      return 'datetime';
    case 'email':
    case 'idn-email':
      return 'email';
    case 'uri':
    case 'url':
    case 'iri':
      return 'url';
    default:
      return 'string';
  }
}
