import { ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server';
import { allows } from '../../identity/scopes.js';
import type { ToolDispatcher } from '../dispatcher.js';
import type { QuarryAuthExtra } from '../endpoint.js';
import { listResources } from './list.js';
import { readResource } from './read.js';
import type { ResourceCaller } from './tool-read.js';
import { CACHE_HINTS, type CacheHint, RESOURCE_TEMPLATES } from './uris.js';

/** What the endpoint declares for resources (no subscribe: change notifications are served apart). */
export const RESOURCES_CAPABILITY = { listChanged: false } as const;

/**
 * The resources handlers on one per-request server (docs/adr/0030-mcp-resources.md): templates,
 * the caller's list, and reads, each through the read tools with the caller's principal. Reading
 * needs the quarry:read scope; a resource whose tool the caller's allowlist leaves out does not
 * exist for it. 2026-07-28 results carry their cache hints (2025-era results have no such fields).
 */
export function registerResources(server: Server, dispatcher: ToolDispatcher, era: 'legacy' | 'modern'): void {
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
    const caller = readerOf(ctx.http?.authInfo?.extra, ctx.mcpReq.signal);
    return hinted(await listResources(dispatcher, request.params?.cursor, caller), CACHE_HINTS.list);
  });

  server.setRequestHandler('resources/read', async (request, ctx) => {
    const caller = readerOf(ctx.http?.authInfo?.extra, ctx.mcpReq.signal);
    const { ref, contents } = await readResource(dispatcher, request.params.uri, caller);
    return hinted({ contents }, CACHE_HINTS[ref.kind]);
  });
}

function readerOf(extra: Record<string, unknown> | undefined, signal: AbortSignal): ResourceCaller {
  const auth = extra as QuarryAuthExtra | undefined;
  if (!auth) throw new Error('a resources request reached the MCP handler without an authenticated principal');
  if (!allows(auth.principal.scopes, 'quarry:read'))
    throw new ProtocolError(
      ProtocolErrorCode.InvalidRequest,
      'Reading resources needs the scope quarry:read, which this token does not have; authorize again with it.',
    );
  return { principal: auth.principal, requestId: auth.requestId, signal };
}
