import type { ClientFixture } from './client-fixture.js';

// A client's MCP traffic with its access token, as it puts it on the wire: its headers on every
// POST, its protocol version and capabilities in initialize, MCP-Protocol-Version afterwards
// only if it sends one, and answers read as JSON or as a Server-Sent Events stream.

type Json = Record<string, unknown>;

/** A tool result as the model reads it. */
export interface ToolResult {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Json;
  isError?: boolean;
}

/** The JSON-RPC message of a body: JSON, or the first `data:` line of an event stream. */
function messageOf(text: string): Json {
  const data = /^data: (.*)$/m.exec(text);
  return JSON.parse(data ? data[1]! : text) as Json;
}

export function clientSession(mcpUrl: string, token: string, client: ClientFixture) {
  let negotiated: string | undefined;
  let nextId = 1;

  async function post(body: Json) {
    const headers: Record<string, string> = { ...client.mcp.headers, authorization: `Bearer ${token}` };
    if (negotiated && client.mcp.sendsProtocolVersionHeader) headers['mcp-protocol-version'] = negotiated;
    const response = await fetch(mcpUrl, { method: 'POST', headers, body: JSON.stringify(body) });
    return { status: response.status, text: await response.text() };
  }

  async function request(method: string, params: Json = {}): Promise<Json> {
    const { status, text } = await post({ jsonrpc: '2.0', id: nextId++, method, params });
    if (status !== 200) throw new Error(`${method}: Quarry answered ${status}: ${text.slice(0, 600)}`);
    const message = messageOf(text);
    if (message.error) throw new Error(`${method}: ${JSON.stringify(message.error)}`);
    return message.result as Json;
  }

  return {
    /** initialize with the client's version, capabilities and clientInfo; later requests carry what was negotiated. */
    async initialize() {
      const result = await request('initialize', {
        protocolVersion: client.mcp.protocolVersion,
        capabilities: client.mcp.capabilities,
        clientInfo: client.mcp.clientInfo,
      });
      negotiated = result.protocolVersion as string;
      const { status, text } = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
      if (status !== 202) throw new Error(`notifications/initialized: Quarry answered ${status}: ${text}`);
      return result as { protocolVersion: string; capabilities: Json; serverInfo: Json };
    },
    request,
    async callTool(name: string, args: Json) {
      return (await request('tools/call', { name, arguments: args })) as unknown as ToolResult;
    },
  };
}

export type ClientSession = ReturnType<typeof clientSession>;
