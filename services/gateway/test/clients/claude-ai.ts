import type { ClientFixture } from './client-fixture.js';

// claude.ai custom connectors (the same backend serves Claude Desktop's and mobile's connectors):
// Anthropic's servers make every request, so Quarry must be on a public https URL. Against an
// authorization server that advertises Client ID Metadata Documents and the `none` token
// endpoint method, Claude identifies itself by its published document instead of registering.

const DOCUMENT_URL = 'https://claude.ai/oauth/mcp-oauth-client-metadata';

export const claudeAi: ClientFixture = {
  name: 'claude.ai',
  source: {
    registration:
      'https://claude.ai/oauth/mcp-oauth-client-metadata as served on 2026-09-29 (quoted verbatim in public CIMD test fixtures, e.g. "claude.ai\'s own document, as it served it")',
    cimdFirst:
      'https://claude.com/docs/connectors/building/authentication: CIMD is used only when the metadata advertises client_id_metadata_document_supported and "none" in token_endpoint_auth_methods_supported, else DCR',
    redirectUri:
      'https://claude.com/docs/connectors/building/authentication, "Callback URLs": https://claude.ai/api/mcp/auth_callback',
    scope:
      'https://claude.com/docs/connectors/building/authentication: "Claude appends offline_access when the AS advertises it in scopes_supported"; the base scopes per MCP 2025-11-25 (protected-resource scopes_supported)',
    resource: 'https://claude.com/docs/connectors/building/troubleshooting ("Audience mismatch"): the MCP server URL',
    protocolVersion:
      'not public (closed backend); the clientInfo claude-ai and 2025-11-25 that the same Claude client sends from Claude Desktop (williamkapke/kapture#17)',
    headers:
      'user-agent python-httpx/0.28.1 logged from claude.ai (anthropics/claude-code#30511); accept and MCP-Protocol-Version as the MCP Python SDK Streamable HTTP client sends them (not public)',
  },
  registration: {
    kind: 'cimd',
    clientId: DOCUMENT_URL,
    document: {
      client_id: DOCUMENT_URL,
      client_name: 'Claude',
      client_uri: 'https://claude.ai',
      redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
      grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:jwt-bearer'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    onlyWithNone: true,
  },
  redirectUri: 'https://claude.ai/api/mcp/auth_callback',
  scope: 'protected-resource+offline',
  resource: 'server-url',
  tokenAuth: ['none'],
  mcp: {
    protocolVersion: '2025-11-25',
    clientInfo: { name: 'claude-ai', version: '0.1.0' },
    capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } },
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'user-agent': 'python-httpx/0.28.1',
    },
    sendsProtocolVersionHeader: true,
  },
  work: 'plan',
  waitsFor: [],
};
