import { Agent, request } from 'node:http';

/**
 * MCP tool calls as a client of the 2026-07-28 era sends them: one stateless JSON-RPC POST
 * carrying its own `_meta` envelope, answered with one JSON body (the SDK client's exact shape).
 */
const MCP_PROTOCOL_VERSION = '2026-07-28';

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MCP_PROTOCOL_VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'quarry-bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** Headers of a tools/call POST of `tool`. */
function mcpHeaders(token: string, tool: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${token}`,
    'mcp-protocol-version': MCP_PROTOCOL_VERSION,
    // The 2026-07-28 era repeats the method and tool name in headers (routable without the body).
    'mcp-method': 'tools/call',
    'mcp-name': tool,
  };
}

function toolCallBody(name: string, args: Record<string, unknown>, id = 1): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args, _meta: ENVELOPE },
  });
}

/** A whole tools/call request (headers and body), e.g. for a load generator. */
export function toolCallRequest(token: string, name: string, args: Record<string, unknown>, id = 1) {
  return { headers: mcpHeaders(token, name), body: toolCallBody(name, args, id) };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tool outputs are read by field
export type ToolOutput = Record<string, any>;

/** The structured result of a tools/call response body; throws on a JSON-RPC or tool error. */
function toolOutput(body: string): ToolOutput {
  const message = JSON.parse(body) as {
    result?: { isError?: boolean; structuredContent?: ToolOutput };
    error?: { message: string };
  };
  if (message.error) throw new Error(`MCP error: ${message.error.message}`);
  if (!message.result || message.result.isError)
    throw new Error(`Tool error: ${JSON.stringify(message.result?.structuredContent)}`);
  return message.result.structuredContent ?? {};
}

export interface McpCaller {
  call(name: string, args: Record<string, unknown>): Promise<ToolOutput>;
  close(): void;
}

/**
 * A lean keep-alive HTTP client for one MCP endpoint (node:http, so the client adds as little
 * as possible to what is measured). `sockets` bounds the concurrent connections.
 */
export function createMcpCaller(url: string, token: string, sockets = 1): McpCaller {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  let id = 0;
  function post({ headers, body }: { headers: Record<string, string>; body: string }): Promise<string> {
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) }, timeout: 30_000 },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () =>
            res.statusCode === 200 ? resolve(text) : reject(new Error(`HTTP ${res.statusCode}: ${text}`)),
          );
        },
      );
      req.on('timeout', () => req.destroy(new Error('MCP call timed out')));
      req.on('error', reject);
      req.end(body);
    });
  }
  return {
    call: async (name, args) => toolOutput(await post(toolCallRequest(token, name, args, ++id))),
    close: () => agent.destroy(),
  };
}
