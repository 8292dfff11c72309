import { Client, type ClientOptions, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import type { ToolAnswer } from './tool-answers.js';

// The official MCP client, for what only a real client shows (era negotiation, its errors,
// progress on a streamed answer, an input-required round trip): against a gateway built in the
// test and listening on a free loopback port, or any running gateway.

/** Which protocol era a client speaks: 2025-era (legacy, stateless) or 2026-07-28 (modern). */
export type Era = 'legacy' | 'modern';

/** The client option that makes it speak `era`. */
export function speaking(era: Era): Pick<ClientOptions, 'versionNegotiation'> {
  return { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: '2026-07-28' } } };
}

/** An MCP client of the given protocol era, authenticated with `token` (none: no Authorization). */
export async function connectClient(url: string, token: string | undefined, era: Era): Promise<Client> {
  const client = new Client({ name: 'quarry-tests', version: '1.0.0' }, speaking(era));
  const auth = token ? { authProvider: { token: async () => token } } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), auth));
  return client;
}

/** Listens a built server on a free loopback port and returns its MCP endpoint's URL. */
export async function listenOnLoopback(app: FastifyInstance): Promise<string> {
  return `${await app.listen({ host: '127.0.0.1', port: 0 })}/mcp`;
}

/**
 * Official MCP clients, each connected with a bearer token (none: no Authorization) and its
 * options; `closeAll` closes every one still open.
 */
export function officialClients() {
  const open: Client[] = [];
  return {
    async connect(url: string, token: string | undefined, options: ClientOptions, name = 'quarry-tests') {
      const client = new Client({ name, version: '1.0.0' }, options);
      const auth = token ? { authProvider: { token: async () => token } } : {};
      await client.connect(new StreamableHTTPClientTransport(new URL(url), auth));
      open.push(client);
      return client;
    },
    async closeAll() {
      for (const client of open.splice(0)) await client.close();
    },
  };
}

/** A result of the client's `callTool` as a model sees it (for `expectToolError`). */
export function answerOf(result: { isError?: boolean; structuredContent?: unknown }): ToolAnswer {
  return { isError: Boolean(result.isError), data: (result.structuredContent ?? {}) as ToolAnswer['data'] };
}
