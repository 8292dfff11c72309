import type { ClientFixture } from './client-fixture.js';

// VS Code (GitHub Copilot's agent mode uses VS Code's MCP client). Against an authorization
// server that advertises Client ID Metadata Documents it uses its published document instead of
// registering (microsoft/vscode#271403). Its loopback listener binds 33418 first and falls back
// to a port the OS picks when 33418 is taken (a second window, another app): that fallback run is
// the one replayed here, since it is the one that needs RFC 8252's any-port loopback matching.

const VSCODE = 'microsoft/vscode@05f882b02c51633f2e1e8252722f8c3b626d74a9';
const DOCUMENT_URL = 'https://vscode.dev/oauth/client-metadata.json';

export const vscode: ClientFixture = {
  name: 'VS Code',
  source: {
    registration:
      'https://vscode.dev/oauth/client-metadata.json (microsoft/vscode#298300; quoted verbatim in public CIMD fixtures); chosen when client_id_metadata_document_supported (microsoft/vscode#271403, mainThreadAuthentication.ts productService.authClientIdMetadataUrl)',
    dcrFallback: `${VSCODE}:src/vs/base/common/oauth.ts fetchDynamicRegistration (used when CIMD is not advertised)`,
    redirectUri:
      'src/vs/workbench/api/node/loopbackServer.ts: http://127.0.0.1:33418/, or server.listen(0, "127.0.0.1") when 33418 is taken',
    scope:
      'src/vs/workbench/api/common/extHostMcp.ts: the WWW-Authenticate scope, else the protected-resource scopes_supported',
    resource:
      "src/vs/workbench/api/common/extHostAuthentication.ts: resource = the protected-resource metadata's resource on authorize and token (RFC 8707)",
    protocolVersion:
      'src/vs/workbench/contrib/mcp/common/modelContextProtocol.ts LATEST_PROTOCOL_VERSION 2025-06-18 as VS Code reports it (canimcp.dev/client/visual-studio-code); later releases send 2025-11-25',
    headers:
      'src/vs/workbench/api/common/extHostMcp.ts _sendStreamableHttp: accept "text/event-stream, application/json", no MCP-Protocol-Version on MCP requests; user-agent `${product.nameLong}/${product.version}`',
    capabilities:
      'src/vs/workbench/contrib/mcp/common/mcpServerRequestHandler.ts initialize: roots, sampling, elicitation',
  },
  registration: {
    kind: 'cimd',
    clientId: DOCUMENT_URL,
    document: {
      client_id: DOCUMENT_URL,
      client_name: 'Visual Studio Code',
      client_uri: 'https://code.visualstudio.com',
      redirect_uris: ['http://127.0.0.1:33418/', 'https://vscode.dev/redirect'],
      grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    },
  },
  redirectUri: 'http://127.0.0.1:{port}/',
  scope: 'protected-resource',
  resource: 'metadata-resource',
  tokenAuth: ['none'],
  mcp: {
    protocolVersion: '2025-06-18',
    clientInfo: { name: 'Visual Studio Code', version: '1.104.0' },
    capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} },
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream, application/json',
      'user-agent': 'Visual Studio Code/1.104.0',
    },
    sendsProtocolVersionHeader: false,
  },
  work: 'plan',
  waitsFor: [],
};
