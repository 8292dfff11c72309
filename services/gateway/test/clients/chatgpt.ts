import type { ClientFixture } from './client-fixture.js';

// ChatGPT apps and connectors (deep research, company knowledge, developer mode). OpenAI's
// servers make the requests, so Quarry must be on a public https URL. ChatGPT prefers its Client
// ID Metadata Document over registering; the document asks for private_key_jwt at the token
// endpoint and also lists `none`, and ChatGPT uses the first of those the server advertises.

const DOCUMENT_URL = 'https://chatgpt.com/oauth/client.json';

export const chatgpt: ClientFixture = {
  name: 'ChatGPT',
  source: {
    registration:
      'https://chatgpt.com/oauth/client.json as served (quoted verbatim in public CIMD test fixtures); https://developers.openai.com/plugins/build/auth: "ChatGPT skips dynamic client registration and sends a CIMD document URL as the client_id"',
    tokenAuth:
      'the document: token_endpoint_auth_method private_key_jwt, token_endpoint_auth_methods_supported [none, private_key_jwt]; developers.openai.com/plugins/build/auth: "Publish the token endpoint authentication methods your authorization server accepts"',
    redirectUri:
      'https://developers.openai.com/plugins/build/auth: the stable https://chatgpt.com/connector_platform_oauth_redirect (per-app https://chatgpt.com/connector/oauth/{callback_id} also used)',
    scope:
      'not published (community.openai.com "ChatGPT app detecting wrong scopes"): the MCP 2025-11-25 default, the protected-resource scopes_supported',
    resource:
      'https://developers.openai.com/apps-sdk/build/auth: "Expect ChatGPT to append resource=https%3A%2F%2Fyour-mcp.example.com to both the authorization and token requests"',
    protocolVersion:
      'not published (zuplo.com/learn/mcp/compatibility/clients/chatgpt-connectors: OpenAI pages link both 2025-11-25 and 2025-06-18); 2025-06-18 as its lifecycle page; clientInfo openai-mcp 1.0.0 (MCPJam/inspector sdk/src/host-config/templates/seed-host-template.ts, chatgpt)',
    work: 'https://developers.openai.com/apps-sdk (deep research / company knowledge): tools named search(query) and fetch(id), one text content item each',
    headers:
      'not published: the MCP 2025-06-18 Streamable HTTP defaults (accept both types, MCP-Protocol-Version after initialize)',
  },
  registration: {
    kind: 'cimd',
    clientId: DOCUMENT_URL,
    document: {
      client_id: DOCUMENT_URL,
      client_uri: 'https://chatgpt.com/',
      redirect_uris: ['https://chatgpt.com/connector_platform_oauth_redirect'],
      token_endpoint_auth_method: 'private_key_jwt',
      token_endpoint_auth_methods_supported: ['none', 'private_key_jwt'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      client_name: 'ChatGPT',
      logo_uri: 'https://persistent.oaistatic.com/sonic/misc/openai-logo.png',
      token_endpoint_auth_signing_alg: 'RS256',
      jwks_uri: 'https://chatgpt.com/oauth/jwks.json',
    },
  },
  redirectUri: 'https://chatgpt.com/connector_platform_oauth_redirect',
  scope: 'protected-resource',
  resource: 'server-url',
  tokenAuth: ['private_key_jwt', 'none'],
  mcp: {
    protocolVersion: '2025-06-18',
    clientInfo: { name: 'openai-mcp', version: '1.0.0' },
    capabilities: {},
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    sendsProtocolVersionHeader: true,
  },
  work: 'chatgpt-research',
  waitsFor: [],
};
