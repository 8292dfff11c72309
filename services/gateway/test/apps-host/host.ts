// Browser code: a minimal MCP Apps host for the gateway's tests, on the ext-apps SDK's host side
// (AppBridge) and the official MCP client, bundled by the test (mcp-apps-host.e2e.test.ts) and
// served at the gateway's origin. It does what a chat host does: lists the tools (declaring the
// extension), reads the tool's ui:// view, renders it in a sandboxed iframe under the
// extension's default CSP, forwards the view's tool calls to Quarry with the user's token, and
// hands the view the tool input and result.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  AppBridge,
  getToolUiResourceUri,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
} from '@modelcontextprotocol/ext-apps/app-bridge';

/** The CSP a host must apply to a view that declares none (the extension's restrictive default). */
const DEFAULT_VIEW_CSP = [
  "default-src 'none'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "media-src 'self' data:",
  "connect-src 'none'",
].join('; ');

interface Opened {
  uri: string;
  mimeType: string | undefined;
  resourceMeta: unknown;
  /** Links the view asked the host to open. */
  links: string[];
}

async function openView(token: string, tool: string, args: Record<string, unknown>): Promise<Opened> {
  const client = new Client(
    { name: 'quarry-test-host', version: '1.0.0' },
    {
      capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [RESOURCE_MIME_TYPE] } } },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', location.href), { authProvider: { token: async () => token } }),
  );
  const { tools } = await client.listTools();
  const declared = tools.find((t) => t.name === tool);
  const uri = declared && getToolUiResourceUri(declared);
  if (!uri) throw new Error(`${tool} names no ui:// view`);
  const { contents } = await client.readResource({ uri });
  const [content] = contents;
  if (!content || !('text' in content)) throw new Error(`${uri} has no HTML`);

  const frame = document.createElement('iframe');
  frame.sandbox.add('allow-scripts');
  frame.title = `Quarry view for ${tool}`;
  frame.style.width = '100%';
  frame.style.border = '1px solid #d0d7de';
  frame.srcdoc = content.text.replace(
    '<head>',
    `<head><meta http-equiv="Content-Security-Policy" content="${DEFAULT_VIEW_CSP}">`,
  );
  document.getElementById('views')!.append(frame);

  const links: string[] = [];
  const bridge = new AppBridge(
    client,
    { name: 'quarry-test-host', version: '1.0.0' },
    { openLinks: {}, serverTools: {}, logging: {} },
    { hostContext: { theme: 'light', displayMode: 'inline', platform: 'web' } },
  );
  bridge.onsizechange = ({ height }) => {
    if (height) frame.style.height = `${Math.ceil(height)}px`;
  };
  bridge.onopenlink = async ({ url }) => {
    links.push(url);
    return {};
  };
  const initialized = new Promise<void>((resolve) => (bridge.oninitialized = () => resolve()));
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  const result = await client.callTool({ name: tool, arguments: args });
  await bridge.sendToolResult(result);
  return { uri, mimeType: content.mimeType, resourceMeta: content._meta, links };
}

(window as unknown as { openView: typeof openView }).openView = openView;
