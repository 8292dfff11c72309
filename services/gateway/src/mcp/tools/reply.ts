import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ToolDefinition } from '@quarry/contracts';
import type { Permalinks } from '../../web/permalinks.js';
import { resourceLinksOf } from '../resources/links.js';

// A service's reply, decoded to JSON, holds the tool's structured content and, in fields the
// catalogue marks as the gateway's own (quarry/mcp/v1/sampling.proto), what is not for the
// model: the tokens a model call spent, a request for the client's model, a file to embed.

/** The tokens a tool that runs a model spent (quarry.mcp.v1.ModelUsage): for the tool-call log. */
export interface ModelUsage {
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
}

/** A decoded reply with the gateway's side-channel fields taken out of the structured content. */
export interface ReplyParts {
  /** The structured content the output schema describes. */
  structured: Record<string, unknown>;
  usage?: ModelUsage;
  /** The service asks for the client's model (quarry.mcp.v1.SamplingRequest, proto3 JSON). */
  ask?: Record<string, unknown>;
  /** A file the reply carries (quarry.mcp.v1.EmbeddedResource, proto3 JSON). */
  resource?: Record<string, unknown>;
  /** An image the reply carries (quarry.mcp.v1.Image, proto3 JSON). */
  image?: Record<string, unknown>;
}

/** Splits a decoded reply into its structured content and the gateway's fields (the object is modified). */
export function replyParts(tool: ToolDefinition, structured: Record<string, unknown>): ReplyParts {
  const fields = tool.gatewayFields;
  const usage = fields?.modelUsage ? takeField(structured, fields.modelUsage) : undefined;
  const ask = fields?.samplingRequest ? takeField(structured, fields.samplingRequest) : undefined;
  const resource = fields?.embeddedResource ? takeField(structured, fields.embeddedResource) : undefined;
  const image = fields?.image ? takeField(structured, fields.image) : undefined;
  return { structured, usage: asUsage(usage), ask, resource, image };
}

/**
 * The result of a reply that matched its output schema: the JSON as text, then the file it
 * carries as an embedded resource and the image it carries as image content (their bytes travel
 * once, outside structuredContent), then links
 * to what the result names (proto-declared fields). With a public URL, every stored item's
 * address in a permalink field, and every link to a stored item, is its permalink. `structuredJson`
 * is the text content's JSON when it can be spliced in as the structured content (the fast path
 * encodes it once).
 */
export function replyResult(
  tool: ToolDefinition,
  { structured, resource, image }: ReplyParts,
  permalinks?: Permalinks,
): { result: CallToolResult; structuredJson?: string } {
  const embedded = resource ? embeddedResourceOf(resource) : undefined;
  // Links are found by the addresses the service gave, then given as permalinks like the fields.
  const links = resourceLinksOf(structured, tool.resourceLinks, new Set(embedded ? [embedded.uri] : [])).map(
    (link) => ({ ...link, uri: permalinks?.of(link.uri) ?? link.uri }),
  );
  if (permalinks && tool.permalinks)
    for (const path of tool.permalinks) replaceStrings(structured, path, (address) => permalinks.of(address));
  const structuredJson = JSON.stringify(structured);
  const pictured = image ? imageOf(image) : undefined;
  if (embedded || pictured) {
    const content: CallToolResult['content'] = [
      { type: 'text', text: structuredJson },
      ...(embedded ? [{ type: 'resource' as const, resource: embedded }] : []),
      ...(pictured ? [{ type: 'image' as const, ...pictured }] : []),
      ...links,
    ];
    return { result: { content, structuredContent: structured } };
  }
  return {
    result: { content: [{ type: 'text', text: structuredJson }, ...links], structuredContent: structured },
    structuredJson,
  };
}

/** Replaces each string at `path` (lists on the way walked) with what `replace` gives, if anything. */
function replaceStrings(root: unknown, path: readonly string[], replace: (value: string) => string | undefined) {
  const walk = (node: unknown, depth: number): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item, depth);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const holder = node as Record<string, unknown>;
    const key = path[depth]!;
    const value = holder[key];
    if (depth < path.length - 1) walk(value, depth + 1);
    else if (typeof value === 'string') holder[key] = replace(value) ?? value;
  };
  walk(root, 0);
}

/** Removes a side-channel field from a decoded reply (it is not part of the output schema). */
function takeField(structured: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const value = structured[key];
  delete structured[key];
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
}

/** quarry.mcp.v1.EmbeddedResource in proto3 JSON (bytes as base64) → an MCP blob resource. */
function embeddedResourceOf(value: Record<string, unknown>) {
  return {
    uri: String(value.uri ?? ''),
    mimeType: String(value.mimeType ?? 'application/octet-stream'),
    blob: typeof value.blob === 'string' ? value.blob : '',
  };
}

/** quarry.mcp.v1.Image in proto3 JSON (bytes as base64) → MCP image content. */
function imageOf(value: Record<string, unknown>) {
  return {
    data: typeof value.data === 'string' ? value.data : '',
    mimeType: String(value.mimeType ?? 'application/octet-stream'),
  };
}

/** A ModelUsage in proto3 JSON, with token counts held to whole non-negative numbers. */
export function asUsage(value: unknown): ModelUsage | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  const tokens = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.round(n) : 0);
  return {
    provider: String(v.provider ?? ''),
    model: String(v.model ?? ''),
    inputTokens: tokens(v.inputTokens),
    outputTokens: tokens(v.outputTokens),
  };
}
