import type { ClientFixture } from './client-fixture.js';

// Claude Desktop has two ways to a remote server. Its Connectors settings go through claude.ai's
// backend, exactly as claude-ai.ts replays. This fixture is the other way, the one that reaches
// a Quarry on the user's own machine or network without a public https URL: the
// claude_desktop_config.json entry that runs `npx mcp-remote <url>`, a stdio bridge. mcp-remote
// runs the OAuth flow itself (Dynamic Client Registration, loopback redirect) and forwards
// Claude Desktop's own initialize unchanged.

const MCP_REMOTE = 'geelen/mcp-remote@d26e5a821ee7e266109f05871ecc2570d8a7054a';

export const claudeDesktop: ClientFixture = {
  name: 'Claude Desktop',
  source: {
    registration: `${MCP_REMOTE}:src/lib/node-oauth-client-provider.ts (clientMetadata) and src/proxy.ts (clientName "MCP CLI Proxy"); software_version is mcp-remote's version (package.json 0.1.38)`,
    redirectUri: `${MCP_REMOTE}:src/lib/utils.ts calculateDefaultPort/findAvailablePort: http://localhost:<port>/oauth/callback, a port derived from the server URL (3335–49151), registered and used alike`,
    scope: `${MCP_REMOTE}:src/lib/node-oauth-client-provider.ts getEffectiveScope: WWW-Authenticate scope, else the protected-resource scopes_supported`,
    resource:
      "the MCP TypeScript SDK 1.x auth() mcp-remote runs: the protected-resource metadata's resource, which for Quarry is the URL it was given",
    protocolVersion:
      "Claude Desktop's initialize as its MCP log shows it (williamkapke/kapture#17, 2026-06): protocolVersion 2025-11-25, clientInfo claude-ai, the MCP Apps UI extension",
    headers: `${MCP_REMOTE}: no headers of its own; the MCP TypeScript SDK 1.x Streamable HTTP client's (accept, MCP-Protocol-Version after initialize) and Node fetch's user-agent`,
  },
  registration: {
    kind: 'dcr',
    body: {
      redirect_uris: ['http://localhost:{port}/oauth/callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      client_name: 'MCP CLI Proxy',
      client_uri: 'https://github.com/modelcontextprotocol/mcp-cli',
      software_id: '2e6dc280-f3c3-4e01-99a7-8181dbd1d23d',
      software_version: '0.1.38',
    },
    scopeInBody: true,
  },
  redirectUri: 'http://localhost:{port}/oauth/callback',
  scope: 'protected-resource',
  resource: 'metadata-resource',
  tokenAuth: ['none'],
  mcp: {
    protocolVersion: '2025-11-25',
    clientInfo: { name: 'claude-ai', version: '0.1.0' },
    capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } },
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'user-agent': 'node',
    },
    sendsProtocolVersionHeader: true,
  },
  work: 'plan',
  waitsFor: [],
};
