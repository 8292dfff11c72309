import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { identityV1, toolCatalogue } from '@quarry/contracts';
import { createLocalBackend, createTools } from '@quarry/gateway';
import { createLogger } from '@quarry/telemetry';
import type { FastifyInstance } from 'fastify';
import { identityServiceImplementation } from '../src/identity/service.js';
import { type Era, listenOnLoopback, officialClients, speaking } from './official-client.js';
import { stubBackends } from './stub-backend.js';
import { buildStubServer, member, stubAuthenticator } from './stub-deps.js';

// ping (the identity family) as an official MCP client of either protocol era sees it: the era it
// negotiates, the catalogue entry, the answer, argument and unknown-tool errors. The real gateway
// and tools with the identity service in-process as in production; the other services stubbed,
// tokens from a table. (Real tokens, revoked or expired, and the runtime's operations endpoints:
// identity-runtime.test.ts.)

const TOKEN = `qry_${'a'.repeat(43)}`;
const ada = { ...member('ada'), name: 'Ada Lovelace' };
const clients = officialClients();
let app: FastifyInstance;
let url: string;

beforeAll(async () => {
  const tools = createTools({
    catalogue: toolCatalogue,
    backends: {
      ...stubBackends().backends,
      [`${identityV1.protobufPackage}.IdentityService`]: createLocalBackend(
        identityV1.IdentityServiceService,
        identityServiceImplementation,
      ),
    },
    logger: createLogger({ service: 'gateway-test', level: 'silent' }),
  });
  ({ app } = await buildStubServer({ tools, authenticator: stubAuthenticator({ [TOKEN]: ada }) }));
  url = await listenOnLoopback(app);
});
afterAll(async () => {
  await clients.closeAll();
  await app?.close();
});

describe.each<Era>(['legacy', 'modern'])('an MCP client of the %s era', (era) => {
  it('negotiates its era', async () => {
    const client = await clients.connect(url, TOKEN, speaking(era));
    expect(client.getProtocolEra()).toBe(era);
  });

  it('lists ping with its title, description, schemas and annotations', async () => {
    const client = await clients.connect(url, TOKEN, speaking(era));
    const { tools } = await client.listTools();
    const ping = tools.find((t) => t.name === 'ping');
    expect(ping).toMatchObject({
      title: 'Ping',
      description: expect.stringMatching(/reachable/),
      inputSchema: { type: 'object', properties: {} },
      outputSchema: { type: 'object', required: ['message', 'orgSlug', 'userEmail', 'userName'] },
      annotations: { readOnlyHint: true, idempotentHint: true, destructiveHint: false },
    });
  });

  it('answers ping with who the token belongs to, as structured content and JSON text', async () => {
    const client = await clients.connect(url, TOKEN, speaking(era));
    const result = await client.callTool({ name: 'ping', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      message: 'Connected to Quarry as Ada Lovelace (ada@acme.test).',
      orgSlug: 'acme',
      userEmail: 'ada@acme.test',
      userName: 'Ada Lovelace',
    });
    const text = (result.content as Array<{ type: string; text: string }>)[0]!;
    expect(JSON.parse(text.text)).toEqual(result.structuredContent);
  });

  it('turns bad arguments into a tool error naming the field', async () => {
    const client = await clients.connect(url, TOKEN, speaking(era));
    const result = await client.callTool({ name: 'ping', arguments: { verbose: true } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      error: { code: 'INVALID_ARGUMENT', message: expect.stringMatching(/verbose.*not a known field/) },
    });
  });

  it('refuses an unknown tool with a JSON-RPC invalid-params error', async () => {
    const client = await clients.connect(url, TOKEN, speaking(era));
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(
      /Unknown tool: no_such_tool/,
    );
  });
});
