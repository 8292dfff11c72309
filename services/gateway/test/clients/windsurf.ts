import type { ClientFixture } from './client-fixture.js';

// Windsurf (Cascade; now sold as Devin Desktop). A remote server is a `serverUrl` entry in
// ~/.codeium/windsurf/mcp_config.json, and Windsurf runs the OAuth sign-in itself. Its MCP client
// is closed source and no public capture of its registration, redirect or handshake exists, so
// every value here is the default of the MCP TypeScript SDK 1.x client (the SDK most editor
// clients are built on): a public client registering one loopback redirect on a port picked per
// sign-in, and the SDK's protocol revision and headers. Replace them when Windsurf publishes its own.

export const windsurf: ClientFixture = {
  name: 'Windsurf',
  source: {
    setup:
      'https://docs.devin.ai/desktop/cascade/mcp (where the Windsurf docs moved): serverUrl in ~/.codeium/windsurf/mcp_config.json, OAuth for remote servers',
    registration:
      'not public: the MCP TypeScript SDK 1.x OAuthClientProvider clientMetadata fields (redirect_uris, token_endpoint_auth_method none, grant_types, response_types, client_name) with the scope the SDK adds',
    redirectUri:
      'not public: a loopback listener on a port picked per sign-in (TypeScript SDK examples use http://localhost:<port>/callback)',
    scope: 'not public: the TypeScript SDK 1.x selection (protected-resource scopes_supported)',
    resource: "not public: the TypeScript SDK 1.x auth() (the protected-resource metadata's resource)",
    protocolVersion: 'not public: the TypeScript SDK 1.x LATEST_PROTOCOL_VERSION, 2025-11-25',
    headers: "not public: the TypeScript SDK 1.x Streamable HTTP defaults and Node fetch's user-agent",
  },
  registration: {
    kind: 'dcr',
    body: {
      redirect_uris: ['http://localhost:{port}/callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      client_name: 'Windsurf',
    },
    scopeInBody: true,
  },
  redirectUri: 'http://localhost:{port}/callback',
  scope: 'protected-resource',
  resource: 'metadata-resource',
  tokenAuth: ['none'],
  mcp: {
    protocolVersion: '2025-11-25',
    clientInfo: { name: 'windsurf-client', version: '1.0.0' },
    capabilities: {},
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
