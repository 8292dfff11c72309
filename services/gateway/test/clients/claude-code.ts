import type { ClientFixture } from './client-fixture.js';

// Claude Code (the CLI) against a server whose authorization server advertises Client ID
// Metadata Documents, as Quarry's does: it identifies itself by its published document and
// never registers, and it signs in through a loopback listener on a port of its own per session.

const DOCUMENT_URL = 'https://claude.ai/oauth/claude-code-client-metadata';

export const claudeCode: ClientFixture = {
  name: 'Claude Code',
  source: {
    registration:
      'https://claude.ai/oauth/claude-code-client-metadata, as quoted in anthropics/claude-code#37747, #42301, #44429, #64705 (no application_type, portless loopback redirects)',
    cimdFirst:
      'https://claude.com/docs/connectors/building/authentication: "Claude Code … identifies itself with its own Client ID Metadata Document"',
    redirectUri:
      'https://claude.com/docs/connectors/building/authentication: "an RFC 8252 loopback redirect on an ephemeral port — for example http://localhost:3118/callback. The port varies per session"',
    scope:
      'authorize URL in anthropics/claude-code#10439 carries scope=<the server scopes>; the MCP 2025-11-25 scope selection (protected-resource scopes_supported)',
    resource:
      'https://claude.com/docs/connectors/building/troubleshooting: "Claude sends the RFC 8707 resource parameter on authorization and token requests, set to … your MCP server URL"',
    protocolVersion:
      'initialize captured from Claude Code 2.1.176 (clientInfo claude-code, protocolVersion 2025-11-25), a live probe recorded in MCPJam/inspector sdk/src/host-config/templates/seed-host-template.ts; canimcp.dev/client/claude-code',
    capabilities:
      'canimcp.dev/client/claude-code lists roots and elicitation as supported; the exact object is not public',
    headers:
      'not public (bundled, minified CLI): the MCP TypeScript SDK 1.x Streamable HTTP defaults — accept "application/json, text/event-stream", MCP-Protocol-Version after initialize, Node fetch user-agent',
  },
  registration: {
    kind: 'cimd',
    clientId: DOCUMENT_URL,
    document: {
      client_id: DOCUMENT_URL,
      client_name: 'Claude Code',
      client_uri: 'https://claude.ai',
      redirect_uris: ['http://localhost/callback', 'http://127.0.0.1/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
  },
  redirectUri: 'http://localhost:{port}/callback',
  scope: 'protected-resource',
  resource: 'server-url',
  tokenAuth: ['none'],
  mcp: {
    protocolVersion: '2025-11-25',
    clientInfo: { name: 'claude-code', version: '2.1.176' },
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
