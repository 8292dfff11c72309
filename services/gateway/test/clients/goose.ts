import type { ClientFixture } from './client-fixture.js';

// Goose (Block; desktop and CLI). Its OAuth is the rmcp crate's: with Client ID Metadata
// Documents advertised it sends its published document's URL as the client id and never
// registers; its callback listener binds a port the OS picks per sign-in. Its MCP handshake pins
// 2025-03-26, a revision older than the OAuth it speaks.

const GOOSE = 'block/goose';

export const goose: ClientFixture = {
  name: 'Goose',
  source: {
    registration: `${GOOSE}@06423fd5f56dd53e51ef0c3550fd932cc15e50dd:crates/goose/src/oauth/mod.rs CLIENT_METADATA_URL; the document at https://goose-docs.ai/oauth/client-metadata.json as fetched (quoted verbatim in MCPJam/inspector's OAuth client investigation); DCR only when CIMD is not advertised (rmcp auth.rs)`,
    redirectUri: `${GOOSE}@06423fd:crates/goose/src/oauth/mod.rs: http://127.0.0.1:<port>/oauth_callback, port from GOOSE_OAUTH_CALLBACK_PORT else 0 (OS-picked)`,
    scope: `${GOOSE}@06423fd: no scopes of its own ("scopes are selected from server metadata"): rmcp takes the protected-resource scopes_supported`,
    resource: 'rmcp src/transport/auth.rs: resource = the MCP server URL on authorize, token and refresh',
    protocolVersion: `${GOOSE}@01aaa8214543455f7a1ba3c2e3099a996bcb7b3b:crates/goose/src/agents/mcp_client.rs get_info: with_protocol_version(V_2025_03_26), roots + sampling + elicitation (+ the MCP Apps extension on desktop); clientInfo goose-desktop (block/goose#6931), version 1.38.0 as captured from Goose Desktop (MCPJam/inspector seed-host-template.ts)`,
    headers:
      "crates/goose/src/agents/extension_manager.rs: user-agent goose/<version>; accept and MCP-Protocol-Version as rmcp's Streamable HTTP client sends them",
  },
  registration: {
    kind: 'cimd',
    clientId: 'https://goose-docs.ai/oauth/client-metadata.json',
    document: {
      client_id: 'https://goose-docs.ai/oauth/client-metadata.json',
      client_name: 'goose',
      redirect_uris: ['http://127.0.0.1/oauth_callback', 'http://[::1]/oauth_callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      code_challenge_methods_supported: ['S256'],
    },
  },
  redirectUri: 'http://127.0.0.1:{port}/oauth_callback',
  scope: 'protected-resource',
  resource: 'server-url',
  tokenAuth: ['none'],
  mcp: {
    protocolVersion: '2025-03-26',
    clientInfo: { name: 'goose-desktop', version: '1.38.0' },
    capabilities: {
      roots: {},
      sampling: {},
      elicitation: {},
      extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
    },
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'user-agent': 'goose/1.38.0',
    },
    sendsProtocolVersionHeader: true,
  },
  work: 'plan',
  waitsFor: [],
};
