import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import Fastify from 'fastify';
import { z } from 'zod';

/**
 * The two throughput baselines of p2, served on loopback over the same MCP HTTP transport the
 * gateway speaks (2026-07-28 requests with the same headers and envelope), each with one `echo`
 * tool: what a tool call costs with no Quarry in it.
 *
 * - naive: the MCP SDK's documented pattern — a new McpServer with its zod schema per request.
 * - hand-rolled: a fastify route that parses the JSON-RPC body and answers the call directly (no
 *   SDK, no validation): the ceiling of Node + HTTP on this machine.
 */
export interface Baseline {
  url: string;
  close(): Promise<void>;
}

export const ECHO_ARGS = { text: 'How fast is a tool call with nothing behind it?' };

export async function startNaiveMcpServer(): Promise<Baseline> {
  const handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: 'naive-echo', version: '1.0.0' });
      server.registerTool(
        'echo',
        {
          description: 'Echo the text back.',
          inputSchema: z.object({ text: z.string() }),
          outputSchema: z.object({ text: z.string() }),
        },
        async ({ text }) => ({ content: [{ type: 'text', text }], structuredContent: { text } }),
      );
      return server;
    },
    { legacy: 'stateless', responseMode: 'auto' },
  );
  const node = toNodeHandler(handler);
  const server = createServer((req, res) => void node(req, res));
  return listen(server, '/mcp', async () => {
    await handler.close();
  });
}

export async function startHandRolledEcho(): Promise<Baseline> {
  const app = Fastify({ logger: false });
  app.post('/mcp', async (request) => {
    const message = request.body as { id?: unknown; params?: { arguments?: { text?: unknown } } };
    const text = String(message.params?.arguments?.text ?? '');
    return {
      jsonrpc: '2.0',
      id: message.id ?? null,
      result: { resultType: 'complete', content: [{ type: 'text', text }], structuredContent: { text } },
    };
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mcp`, close: () => app.close() };
}

async function listen(server: Server, path: string, onClose: () => Promise<void>): Promise<Baseline> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    async close() {
      await onClose();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
