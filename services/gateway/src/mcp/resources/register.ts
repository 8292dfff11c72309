import type { Server } from '@modelcontextprotocol/server';
import type { CursorCodec } from '@quarry/cursors';
import type { Permalinks } from '../../web/permalinks.js';
import { type McpApps, VIEW_CACHE_HINT } from '../apps/mcp-apps.js';
import { callerOf, clientCapabilitiesOf } from '../request-context.js';
import type { Tools } from '../tools/call.js';
import { listResources } from './list.js';
import { readResource } from './read.js';
import { CACHE_HINTS, type CacheHint, RESOURCE_TEMPLATES } from './uris.js';

/** What the endpoint declares for resources (no subscribe: change notifications are served apart). */
export const RESOURCES_CAPABILITY = { listChanged: false } as const;

/**
 * The resources handlers on one per-request server (docs/adr/0030-mcp-resources.md): templates,
 * the caller's list, and reads, each through the read tools with the caller's principal. Reading
 * needs the quarry:read scope (the HTTP layer refuses a request without it, see
 * required-scope.ts); a resource whose tool the caller's allowlist leaves out does not exist for
 * it. A stored item's permalink (what results link to with a public URL) reads as its quarry:// URI.
 * 2026-07-28 results carry their cache hints (2025-era results have no such fields). With MCP
 * Apps, a client that negotiated the extension also reads the ui:// views.
 */
export function registerResources(
  server: Server,
  tools: Tools,
  cursors: CursorCodec,
  era: 'legacy' | 'modern',
  permalinks?: Permalinks,
  apps?: McpApps,
): void {
  const hinted = <T extends object>(result: T, hint: CacheHint) => (era === 'modern' ? { ...result, ...hint } : result);

  server.setRequestHandler('resources/templates/list', () =>
    hinted(
      {
        resourceTemplates: RESOURCE_TEMPLATES.map(({ uriTemplate, name, title, description, mimeType }) => ({
          uriTemplate,
          name,
          title,
          description,
          ...(mimeType ? { mimeType } : {}),
        })),
      },
      CACHE_HINTS.templates,
    ),
  );

  server.setRequestHandler('resources/list', async (request, ctx) => {
    return hinted(await listResources(tools, cursors, request.params?.cursor, callerOf(ctx)), CACHE_HINTS.list);
  });

  server.setRequestHandler('resources/read', async (request, ctx) => {
    // A ui:// view exists only for a client that negotiated MCP Apps (apps/mcp-apps.ts).
    const view = era === 'modern' ? await apps?.read(request.params.uri, clientCapabilitiesOf(ctx)) : undefined;
    if (view) return hinted({ contents: view }, VIEW_CACHE_HINT);
    const { ref, contents } = await readResource(tools, request.params.uri, callerOf(ctx), permalinks);
    return hinted({ contents }, CACHE_HINTS[ref.kind]);
  });
}
