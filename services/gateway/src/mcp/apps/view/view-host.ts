// Browser code: bundled by esbuild into the ui:// views (../view-bundle.ts), never run by the gateway.
import {
  App,
  applyDocumentTheme,
  applyHostFonts,
  applyHostStyleVariables,
  type McpUiHostContext,
} from '@modelcontextprotocol/ext-apps';
import { escapeHtml } from '@quarry/views';

/** A tool's answer that is an error (isError), with the text the tool gave: asking again will not help. */
export class ToolCallError extends Error {}

/** The view's side of the host connection: the App, and what every view does with it. */
export interface ViewHost {
  app: App;
  /** Calls one of Quarry's tools through the host (with the user's token); its structured content. */
  call<T>(name: string, args: Record<string, unknown>): Promise<T>;
  /** Puts HTML (from @quarry/views: escaped) into the view's root. */
  show(html: string): void;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Builds the App with the handlers `setup` registers (they must exist before connecting: the
 * host sends the tool input and result right after the handshake), connects it to the host
 * (postMessage to the parent window), and follows the host's theme, style variables and fonts.
 * Links open through the host: a sandboxed view has no navigation of its own.
 */
export async function startView(name: string, setup: (host: ViewHost) => void): Promise<ViewHost> {
  const root = document.getElementById('view');
  if (!root) throw new Error('the view document has no #view element');
  const app = new App({ name, version: '1.0.0' }, {}, { autoResize: true });
  const host: ViewHost = {
    app,
    async call<T>(tool: string, args: Record<string, unknown>): Promise<T> {
      const result = await app.callServerTool({ name: tool, arguments: args });
      if (result.isError || !isRecord(result.structuredContent)) {
        const first = result.content?.[0];
        throw new ToolCallError(first && first.type === 'text' ? first.text : `${tool} failed`);
      }
      return result.structuredContent as T;
    },
    show(html) {
      // Every string in `html` was escaped by @quarry/views; nothing stored reaches markup unescaped.
      root.innerHTML = html;
    },
  };
  const followHost = (context: McpUiHostContext | undefined) => {
    if (context?.theme) applyDocumentTheme(context.theme);
    if (context?.styles?.variables) applyHostStyleVariables(context.styles.variables);
    if (context?.styles?.css?.fonts) applyHostFonts(context.styles.css.fonts);
  };
  app.onhostcontextchanged = followHost;
  root.addEventListener('click', (event) => {
    const anchor = event.target instanceof Element ? event.target.closest('a[href]') : null;
    if (!(anchor instanceof HTMLAnchorElement)) return;
    event.preventDefault();
    void app.openLink({ url: anchor.href }).catch(() => undefined);
  });
  setup(host);
  await app.connect();
  followHost(app.getHostContext());
  return host;
}

/** The message a view shows while it waits or when it cannot read what it needs. */
export const notice = (message: string): string => `<p class="q-muted" role="status">${escapeHtml(message)}</p>`;
