import { MODERN_ENVELOPE, rawPost } from './mcp-requests.js';

// MCP requests of a 2026-07-28 client that speaks the tasks extension (io.modelcontextprotocol/tasks),
// as they go on the wire: the official client SDK cannot take a CreateTaskResult from tools/call
// (the extension's own package drives it through a raw dispatch), so the tests send them themselves.

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

let nextId = 1;

/** One request; `tasks` false leaves the extension out of the client's capabilities. */
export async function modernRequest(
  url: string,
  token: string,
  method: string,
  params: Record<string, unknown>,
  { tasks = true }: { tasks?: boolean } = {},
): ReturnType<typeof rawPost> {
  const name = method === 'tools/call' ? params.name : method.startsWith('tasks/') ? params.taskId : undefined;
  const capabilities = tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {};
  const body = {
    jsonrpc: '2.0',
    id: nextId++,
    method,
    params: { ...params, _meta: { ...MODERN_ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': capabilities } },
  };
  return rawPost(url, JSON.stringify(body), {
    authorization: `Bearer ${token}`,
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
  });
}
