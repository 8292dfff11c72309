import { Client, type FetchLike, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import type { Era } from './official-client.js';

// The official MCP client against a gateway built in-process, without a socket: its fetch is
// answered by `app.inject()`. Everything the client sends goes through the gateway's HTTP layer
// (guards, authentication, scope checks, both MCP paths) exactly as over the network.

/** An HTTP answer the gateway gave an injected client's request. */
export interface InjectedAnswer {
  method: string;
  status: number;
  headers: Headers;
  /** The JSON-RPC method and id of the request, when it had them. */
  rpc?: { method?: string; id?: unknown };
  body: string;
}

/** A fetch served by `app.inject()`; every answer is appended to `answers`. */
export function injectFetch(app: FastifyInstance, answers: InjectedAnswer[] = []): FetchLike {
  return async (input, init = {}) => {
    const url = new URL(String(input));
    const method = init.method ?? 'GET';
    const body = typeof init.body === 'string' ? init.body : undefined;
    const response = await app.inject({
      method: method as 'GET' | 'POST' | 'DELETE',
      url: url.pathname + url.search,
      headers: { ...Object.fromEntries(new Headers(init.headers).entries()), host: url.host },
      ...(body !== undefined ? { payload: body } : {}),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(response.headers))
      for (const one of [value ?? []].flat()) headers.append(name, String(one));
    answers.push({
      method,
      status: response.statusCode,
      headers,
      rpc: body ? rpcOf(body) : undefined,
      body: response.body,
    });
    // A Response refuses a body for these statuses, even an empty one.
    const bodiless = [204, 205, 304].includes(response.statusCode) || response.rawPayload.length === 0;
    return new Response(bodiless ? null : response.rawPayload, { status: response.statusCode, headers });
  };
}

function rpcOf(body: string): InjectedAnswer['rpc'] {
  try {
    const { method, id } = JSON.parse(body) as { method?: unknown; id?: unknown };
    return { ...(typeof method === 'string' ? { method } : {}), id };
  } catch {
    return undefined;
  }
}

/** An MCP client of the given era with `token`, over `app.inject()`; `answers` records what it got. */
export async function connectInjected(
  app: FastifyInstance,
  token: string,
  era: Era,
  answers: InjectedAnswer[] = [],
): Promise<Client> {
  const client = new Client(
    { name: 'quarry-tests', version: '1.0.0' },
    { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: '2026-07-28' } } },
  );
  const transport = new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), {
    authProvider: { token: async () => token },
    fetch: injectFetch(app, answers),
  });
  await client.connect(transport);
  return client;
}
