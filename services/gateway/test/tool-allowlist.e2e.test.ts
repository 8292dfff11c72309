import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { toolCatalogue } from '@quarry/contracts';
import { randomUUID } from 'node:crypto';
import { connectClient, type Era, startTestGateway } from './harness.js';

// A token limited to some tools, through the whole system with the official MCP client of
// either era: it lists exactly the tools its allowlist names and its scopes allow, is refused
// every other tool as unknown, and its allowed tools reach their service. A token without an
// allowlist is unchanged.

let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let limited: string;

beforeAll(async () => {
  gateway = await startTestGateway();
  // create_research_plan writes: named, but beyond the token's read scope.
  ({ token: limited } = await gateway.admin.createToken({
    orgSlug: 'acme',
    email: 'ada@acme.test',
    name: 'reader',
    scopes: ['quarry:read'],
    tools: ['get_plan_status', 'search_sources', 'create_research_plan'],
  }));
}, 120_000);
afterAll(async () => {
  await gateway?.close();
});

describe.each<Era>(['legacy', 'modern'])('an MCP client of the %s era', (era) => {
  it('with a limited token lists exactly the allowed tools its scopes allow', async () => {
    const client = await connectClient(gateway.url, limited, era);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['get_plan_status', 'search_sources']);
    await client.close();
  });

  it('with a limited token reaches the allowed tools and is refused the others as unknown', async () => {
    const client = await connectClient(gateway.url, limited, era);
    const status = await client.callTool({ name: 'get_plan_status', arguments: { planId: randomUUID() } });
    expect(status.structuredContent).toMatchObject({ error: { code: 'PLAN_NOT_FOUND' } });
    const search = await client.callTool({ name: 'search_sources', arguments: { query: 'anything' } });
    expect(search.isError).toBeFalsy();
    await expect(client.callTool({ name: 'ping', arguments: {} })).rejects.toThrow(/Unknown tool: ping\b/);
    await expect(client.callTool({ name: 'list_plans', arguments: {} })).rejects.toThrow(/Unknown tool: list_plans/);
    await client.close();
  });

  it('without an allowlist lists and calls every tool as before', async () => {
    const client = await connectClient(gateway.url, gateway.token, era);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(toolCatalogue.map((t) => t.name).sort());
    expect((await client.callTool({ name: 'ping', arguments: {} })).isError).toBeFalsy();
    await client.close();
  });
});

describe('creating a limited token', () => {
  it('refuses a tool name the catalogue does not have, naming it', async () => {
    await expect(
      gateway.admin.createToken({ orgSlug: 'acme', email: 'ada@acme.test', tools: ['get_plan_status', 'get_plans'] }),
    ).rejects.toThrow(/Unknown tool "get_plans"/);
  });
});
