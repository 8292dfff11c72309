import { ScalarType, type DescField, type DescMessage, type DescMethod } from '@bufbuild/protobuf';
import type { SchemaSources } from './schema-sources.js';
import type { ResourceLinkField } from './types.js';

// The response fields the gateway reads by option rather than by tool: `(quarry.mcp.v1.resource_link)`
// (a resource the result names) and `(quarry.mcp.v1.permalink)` (a stored item's address, given
// as its permalink). Both are found at any depth and only on string fields of a response.

/** Every field of `message` (at any depth) that `marked` picks, with its JSON path from the root. */
function markedFields(message: DescMessage, marked: (field: DescField) => boolean) {
  const found: { field: DescField; path: string[] }[] = [];
  // A message type met again on the way down is not entered twice.
  const walk = (current: DescMessage, path: string[], seen: Set<string>) => {
    for (const field of current.fields) {
      if (marked(field)) found.push({ field, path: [...path, field.jsonName] });
      const inner = field.message;
      if (inner && !inner.typeName.startsWith('google.protobuf.') && !seen.has(inner.typeName))
        walk(inner, [...path, field.jsonName], new Set([...seen, inner.typeName]));
    }
  };
  walk(message, [], new Set([message.typeName]));
  return found;
}

const where = (field: DescField) => `field ${field.parent.typeName}.${field.name}`;

/** The response fields marked `(quarry.mcp.v1.resource_link)`: string fields only, each URI with one `{}`. */
export function resourceLinksOf(method: DescMethod, sources: SchemaSources, problems: string[]): ResourceLinkField[] {
  for (const field of method.input.fields.filter((f) => sources.resourceLink(f)))
    problems.push(`${where(field)}: resource_link belongs in a response, not the request`);
  const links: ResourceLinkField[] = [];
  for (const { field, path } of markedFields(method.output, (f) => sources.resourceLink(f) !== undefined)) {
    const uris = sources.resourceLink(field)!.uris ?? [];
    if (field.scalar !== ScalarType.STRING) problems.push(`${where(field)}: resource_link needs a string field`);
    else if (uris.length === 0 || uris.some((uri) => uri.split('{}').length !== 2))
      problems.push(`${where(field)}: each resource_link uri needs exactly one {}`);
    else links.push({ path, uris });
  }
  return links;
}

/** The paths of the response fields marked `(quarry.mcp.v1.permalink)`: string fields only. */
export function permalinksOf(method: DescMethod, sources: SchemaSources, problems: string[]): string[][] {
  for (const field of method.input.fields.filter((f) => sources.permalink(f)))
    problems.push(`${where(field)}: permalink belongs in a response, not the request`);
  const paths: string[][] = [];
  for (const { field, path } of markedFields(method.output, (f) => sources.permalink(f))) {
    if (field.scalar !== ScalarType.STRING) problems.push(`${where(field)}: permalink needs a string field`);
    else paths.push(path);
  }
  return paths;
}
