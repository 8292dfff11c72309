import { getUiCapability, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import type { ClientCapabilities, ReadResourceResult, Tool } from '@modelcontextprotocol/server';
import { APP_VIEWS, RESOURCE_MIME_TYPE, VIEW_RESOURCE_META, viewDocument } from './app-views.js';
import { createViewBundler } from './view-bundle.js';

/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension, ADR 0049) on the endpoint: the plan and
 * search tools name their ui:// view in `_meta.ui.resourceUri`, and the ui:// resources read as
 * the views' HTML documents — both only for a request whose client declares the extension with
 * the MCP App MIME type. That is a 2026-07-28 request: a 2025-era request carries no
 * capabilities (they were in an `initialize` this stateless endpoint does not keep), so 2025-era
 * clients and clients without the extension get exactly what they got before.
 */
export interface McpApps {
  /** tools/list for this request: the listing as it is, or with the views declared. */
  listTools(listed: Tool[], capabilities: ClientCapabilities | undefined): Tool[];
  /** resources/read of a ui:// view; undefined when `uri` is not one, or the client did not negotiate the extension. */
  read(uri: string, capabilities: ClientCapabilities | undefined): Promise<ReadResourceResult['contents'] | undefined>;
}

/** Whether the client declared MCP Apps with the HTML profile the views are. */
function declaresApps(capabilities: ClientCapabilities | undefined): boolean {
  return getUiCapability(capabilities)?.mimeTypes?.includes(RESOURCE_MIME_TYPE) ?? false;
}

/** How long a host may keep a view's document: the same for every caller, new only with a new gateway version. */
export const VIEW_CACHE_HINT = { ttlMs: 3_600_000, cacheScope: 'public' } as const;

export function createMcpApps(): McpApps {
  const bundle = createViewBundler();
  const viewOf = new Map(APP_VIEWS.flatMap((view) => view.tools.map((tool) => [tool, view] as const)));
  const byUri = new Map(APP_VIEWS.map((view) => [view.uri, view]));
  return {
    listTools(listed, capabilities) {
      if (!declaresApps(capabilities)) return listed;
      return listed.map((tool) => {
        const view = viewOf.get(tool.name);
        // Both spellings, as the SDK's registerAppTool writes them: hosts read `ui.resourceUri`,
        // older ones the flat key the extension deprecates.
        return view
          ? { ...tool, _meta: { ...tool._meta, ui: { resourceUri: view.uri }, [RESOURCE_URI_META_KEY]: view.uri } }
          : tool;
      });
    },
    async read(uri, capabilities) {
      const view = byUri.get(uri);
      if (!view || !declaresApps(capabilities)) return undefined;
      const text = viewDocument(view, await bundle(view.entry));
      return [{ uri, mimeType: RESOURCE_MIME_TYPE, text, _meta: { ui: VIEW_RESOURCE_META } }];
    },
  };
}
