import type { DescOneof } from '@bufbuild/protobuf';
import type { MutableSchema } from './scalar-schema.js';
import type { SchemaSources } from './schema-sources.js';
import type { JsonSchema } from './types.js';

// Oneof groups, for inputs only (protobuf itself never yields two members in a result).
// "At most one" is `dependentSchemas: { a: { properties: { b: false } } }` (if a is set, b must
// be absent), and "exactly one" adds `anyOf` of `required`. The more common `not: { required:
// [a, b] }` is avoided because Ajv's strict mode rejects `required` in a subschema that does not
// define the property itself; hence also `properties: { a: true }` beside each `required`.
export function oneofKeywords(oneofs: readonly DescOneof[], sources: SchemaSources): MutableSchema {
  const dependentSchemas: Record<string, JsonSchema> = {};
  const atLeastOne: JsonSchema[] = [];
  for (const oneof of oneofs) {
    const names = oneof.fields.map((f) => f.jsonName);
    names.forEach((name, i) => {
      const later = names.slice(i + 1);
      if (later.length > 0) dependentSchemas[name] = { properties: Object.fromEntries(later.map((n) => [n, false])) };
    });
    if (sources.oneofConstraints(oneof)?.required) {
      atLeastOne.push({ anyOf: names.map((name) => ({ required: [name], properties: { [name]: true } })) });
    }
  }
  const keywords: MutableSchema = {};
  if (Object.keys(dependentSchemas).length > 0) keywords.dependentSchemas = dependentSchemas;
  if (atLeastOne.length === 1) Object.assign(keywords, atLeastOne[0]);
  if (atLeastOne.length > 1) keywords.allOf = atLeastOne;
  return keywords;
}

// Tells models in words what the oneof keywords say, on each member.
export function oneofHint(oneof: DescOneof, sources: SchemaSources): string {
  const names = oneof.fields.map((f) => f.jsonName).join(', ');
  return sources.oneofConstraints(oneof)?.required ? `Set exactly one of ${names}.` : `Set at most one of ${names}.`;
}
