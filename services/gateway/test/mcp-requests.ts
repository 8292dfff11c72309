import type { FastifyInstance } from 'fastify';

// MCP requests as clients send them, and what the gateway answered: for tests that speak HTTP
// themselves (inject() against buildServer, or fetch against a running gateway).

/** The per-request envelope a 2026-07-28 client puts in `_meta`. */
export const MODERN_ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'quarry-tests', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** A tools/call exactly as a 2026-07-28 client sends it: the MCP headers and the JSON-RPC body. */
export function modernToolCall(
  name: string,
  args: Record<string, unknown>,
  id: string | number = 1,
): { headers: Record<string, string>; body: Record<string, unknown> } {
  return {
    headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name },
    body: { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: MODERN_ENVELOPE } },
  };
}

/** Any 2026-07-28 request as a client sends it: `Mcp-Name` carries what the method names (tool, uri, prompt). */
export function modernRequest(
  method: string,
  params: Record<string, unknown> = {},
  id: string | number = 1,
): { headers: Record<string, string>; body: Record<string, unknown> } {
  const named = params.name ?? params.uri;
  return {
    headers: {
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof named === 'string' ? { 'mcp-name': named } : {}),
    },
    body: { jsonrpc: '2.0', id, method, params: { ...params, _meta: MODERN_ENVELOPE } },
  };
}

/** A 2025-era initialize (the SDK serves it). */
export const LEGACY_INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** A JSON-RPC answer: a result or an error with the gateway's stable code in `data.code`. */
interface JsonRpcAnswer {
  error?: { code: number; message: string; data?: { code?: string } };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary results
  result?: any;
  id?: unknown;
  jsonrpc?: string;
}

/** The JSON of a body, or of the first SSE `data:` line (a 2025-era answer may stream). */
function parseAnswer(text: string): JsonRpcAnswer {
  try {
    return JSON.parse(text) as JsonRpcAnswer;
  } catch {
    const data = /^data: (.*)$/m.exec(text);
    return (data ? JSON.parse(data[1]!) : undefined) as JsonRpcAnswer;
  }
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A raw JSON-RPC POST to a running gateway, for what a well-behaved client would never send. */
export async function rawPost(url: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: parseAnswer(text) };
}

/** The same POST to /mcp through `app.inject()`: no socket, no port. */
export async function injectPost(app: FastifyInstance, body: string, headers: Record<string, string> = {}) {
  const response = await app.inject({ method: 'POST', url: '/mcp', headers: { ...MCP_HEADERS, ...headers }, body });
  return {
    status: response.statusCode,
    headers: response.headers,
    text: response.body,
    json: parseAnswer(response.body),
  };
}
