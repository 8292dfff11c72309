import type { ResourceLink } from '@modelcontextprotocol/server';
import type { ResourceLinkField } from '@quarry/contracts';
import { parseResourceUri, RESOURCE_TEMPLATES } from './uris.js';

/** The most links one result carries: enough for what a call created, a page of a list bounded. */
const MAX_RESOURCE_LINKS = 10;

const MIME_TYPE_OF = new Map(RESOURCE_TEMPLATES.map((t) => [t.kind, t.mimeType]));

/**
 * The `resource_link` content items of a tool result: one per resource its proto-declared fields
 * (`(quarry.mcp.v1.resource_link)`, ToolDefinition.resourceLinks) name, in the order the fields
 * are declared and the values appear, without repeats, at most MAX_RESOURCE_LINKS. A link is
 * named after the item's own title or name beside the field, and typed as its resource is read;
 * a URI the result already embeds (a binary deliverable) is not linked again. Anything that is
 * not a Quarry resource URI is skipped: a link is a promise that resources/read serves it.
 */
export function resourceLinksOf(
  structured: Record<string, unknown>,
  fields: readonly ResourceLinkField[] | undefined,
  embedded: ReadonlySet<string> = new Set(),
): ResourceLink[] {
  if (!fields) return [];
  const links: ResourceLink[] = [];
  const seen = new Set(embedded);
  for (const field of fields) {
    for (const { value, holder } of valuesAt(structured, field.path)) {
      for (const template of field.uris) {
        if (links.length >= MAX_RESOURCE_LINKS) return links;
        const uri = template.replace('{}', value);
        const ref = parseResourceUri(uri);
        if (!ref || seen.has(uri)) continue;
        seen.add(uri);
        const label = stringField(holder, 'title') ?? stringField(holder, 'name') ?? ref.id;
        const mimeType = ref.kind === 'output' ? stringField(holder, 'mimeType') : MIME_TYPE_OF.get(ref.kind);
        links.push({
          type: 'resource_link',
          uri,
          name: ref.kind === 'report' ? `${label} (report)` : label,
          ...(mimeType ? { mimeType } : {}),
        });
      }
    }
  }
  return links;
}

/** Every non-empty string at `path`, with the object holding it; lists on the way are walked. */
function valuesAt(root: unknown, path: readonly string[]): { value: string; holder: Record<string, unknown> }[] {
  const found: { value: string; holder: Record<string, unknown> }[] = [];
  const walk = (node: unknown, depth: number) => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item, depth);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const holder = node as Record<string, unknown>;
    const next = holder[path[depth]!];
    if (depth === path.length - 1) {
      if (typeof next === 'string' && next) found.push({ value: next, holder });
    } else walk(next, depth + 1);
  };
  walk(root, 0);
  return found;
}

function stringField(holder: Record<string, unknown>, key: string): string | undefined {
  const value = holder[key];
  return typeof value === 'string' && value ? value : undefined;
}
