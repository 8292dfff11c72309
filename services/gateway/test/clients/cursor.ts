import type { ClientFixture } from './client-fixture.js';

// Cursor (desktop editor). It registers by Dynamic Client Registration with three redirect URIs
// in one request: its private-use deep link, the https callback of Cursor's cloud agents, and a
// fixed loopback. The deep link is the redirect Cursor documents for the desktop app and the one
// releases before 3.10 signed in with (current releases return to the loopback one); a server
// that refuses any one of the three refuses the whole registration, and Cursor never signs in.

export const cursor: ClientFixture = {
  name: 'Cursor',
  source: {
    registration:
      'Cursor\'s DCR body as recorded from production (cloudflare/mcp-server-cloudflare test CURSOR_REDIRECT_URIS; erp-mafia/accounted#2225 "Cursor\'s real three-URI body"; soflyy/agent-connector-for-wp#111); no application_type (better-auth/better-auth#10956, Cursor 3.13.25)',
    redirectUri:
      'https://cursor.com/docs/context/mcp: static redirect cursor://anysphere.cursor-mcp/oauth/callback for the desktop app; newer builds return to http://localhost:8787/callback (forum.cursor.com thread 165019)',
    scope:
      'https://cursor.com/docs/context/mcp: "If omitted, Cursor will use /.well-known/oauth-authorization-server to discover scopes_supported"',
    resource:
      'not public; Cursor\'s MCP client is the TypeScript SDK 1.x (its "Dynamic client registration failed: HTTP 401" log line), whose auth() sends the protected-resource resource',
    protocolVersion: 'https://canimcp.dev/client/cursor-vscode: clientInfo cursor-vscode, protocol 2025-06-18',
    capabilities:
      'canimcp.dev/client/cursor-vscode lists roots and elicitation as supported; the exact object and the clientInfo version are not public',
    headers: "not public: the MCP TypeScript SDK 1.x Streamable HTTP defaults and Node fetch's user-agent",
  },
  registration: {
    kind: 'dcr',
    body: {
      client_name: 'Cursor',
      redirect_uris: [
        'cursor://anysphere.cursor-mcp/oauth/callback',
        'https://www.cursor.com/agents/mcp/oauth/callback',
        'http://localhost:8787/callback',
      ],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    scopeInBody: false,
  },
  redirectUri: 'cursor://anysphere.cursor-mcp/oauth/callback',
  scope: 'authorization-server',
  resource: 'metadata-resource',
  tokenAuth: ['none'],
  mcp: {
    protocolVersion: '2025-06-18',
    clientInfo: { name: 'cursor-vscode', version: '1.0.0' },
    capabilities: { roots: {}, elicitation: {} },
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
