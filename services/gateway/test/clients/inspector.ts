import type { ClientFixture } from './client-fixture.js';

// The MCP Inspector (web UI, `npx @modelcontextprotocol/inspector`). It registers by Dynamic
// Client Registration as a native client (a Client ID Metadata Document only when one is
// configured), and returns to its own page on a fixed localhost port. It speaks a 2025 revision
// unless the server's settings pick the 2026 era.

const INSPECTOR = 'modelcontextprotocol/inspector@86d5f58ec8c369839b8237455ad8b1c17b15a984';

export const inspector: ClientFixture = {
  name: 'MCP Inspector',
  source: {
    registration: `${INSPECTOR}:core/auth/providers.ts clientMetadata (scope filled in by the SDK's registerClient); CIMD only with a configured clientMetadataUrl (core/auth/cimd.ts)`,
    redirectUri: `${INSPECTOR}:clients/web/src/App.tsx getRedirectUrl = window.location.origin + /oauth/callback; clients/cli/README.md "Web: http://localhost:6274/oauth/callback"`,
    scope: `${INSPECTOR}: the @modelcontextprotocol/client 2.0 auth(): WWW-Authenticate scope, else the protected-resource scopes_supported`,
    resource: "the @modelcontextprotocol/client 2.0 auth(): the protected-resource metadata's resource",
    protocolVersion: `${INSPECTOR}:core/mcp/inspectorClient.ts versionNegotiation defaults to { mode: "legacy" } (SDK 2.0 legacy: 2025-11-25); clientInfo falls back to mcp-inspector 0.0.0 in the web app`,
    capabilities: `${INSPECTOR}:clients/web/src/App.tsx and core/mcp/inspectorClient.ts: sampling, elicitation form + url, roots, receiver tasks`,
    headers:
      "the @modelcontextprotocol/client 2.0 Streamable HTTP client, proxied by the Inspector's backend (Node fetch user-agent)",
  },
  registration: {
    kind: 'dcr',
    body: {
      redirect_uris: ['http://localhost:6274/oauth/callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      client_name: 'MCP Inspector',
      client_uri: 'https://github.com/modelcontextprotocol/inspector',
      application_type: 'native',
    },
    scopeInBody: true,
  },
  redirectUri: 'http://localhost:6274/oauth/callback',
  scope: 'protected-resource',
  resource: 'metadata-resource',
  tokenAuth: ['none'],
  mcp: {
    protocolVersion: '2025-11-25',
    clientInfo: { name: 'mcp-inspector', version: '0.0.0' },
    capabilities: {
      sampling: {},
      elicitation: { form: {}, url: {} },
      roots: { listChanged: true },
      tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
    },
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
