import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { refuseConnections as refuseConnectionsTo } from '@quarry/testing';
import { startTestGateway } from './harness.js';
import { connectClient } from './official-client.js';
import { LEGACY_INIT, modernToolCall, rawPost } from './mcp-requests.js';
import { sleep, toolsOf, type ToolAnswer } from './tool-answers.js';

// While PostgreSQL refuses connections (a restart, a failover, max_connections reached) the
// gateway cannot check a token it has not cached: the real authenticator's failure is answered
// 503 (the whole answer — Retry-After, the JSON-RPC error — is pinned in http-errors.test.ts), the
// gateway keeps running, and the whole system serves again as soon as the database is back,
// without a restart: plans go on, and content stored before and after the outage is found.

let gateway: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await refuseConnections(false);
  await gateway?.close();
});

// Dropping the open connections (the app's and the indexer's) also drops every LISTEN, so cached
// tokens are no longer trusted and the indexer loses its outbox session.
const refuseConnections = (refuse: boolean) =>
  refuseConnectionsTo(gateway.database, refuse, [gateway.database.appRole, 'quarry_indexer']);

const ping = () => {
  const { headers, body } = modernToolCall('ping', {});
  return rawPost(gateway.url, JSON.stringify(body), { authorization: `Bearer ${gateway.token}`, ...headers });
};
const initialize = () => rawPost(gateway.url, LEGACY_INIT, { authorization: `Bearer ${gateway.token}` });

async function eventually<T>(attempt: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await attempt();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a database outage', () => {
  it('is a 503 on every path while it lasts; afterwards plans go on and content stored before and after is found', async () => {
    const client = await connectClient(gateway.url, gateway.token, 'modern');
    const tools = toolsOf(client);
    const found = async (using: typeof tools, words: string, id: string, timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs;
      let answer: ToolAnswer;
      do {
        answer = await using.ok('search_sources', { query: words, limit: 5 });
        if ((answer.data.results as Array<{ sourceId: string }>).some((r) => r.sourceId === id)) return true;
        await sleep(100);
      } while (Date.now() < deadline);
      return false;
    };
    const { planId } = (
      await tools.ok('create_research_plan', {
        name: 'Outage',
        researchQuestion: 'Does it recover?',
        steps: [
          { stepType: 'search', instructions: 'Find' },
          { stepType: 'analyze', instructions: 'Weigh' },
        ],
      })
    ).data;
    const before = (
      await tools.ok('store_research', {
        artifactType: 'finding',
        title: 'Before',
        content: { n: 1 },
        contentText: 'Fjord sediment cores record Holocene glacier advances.',
        planId,
      })
    ).data.id as string;
    expect(await found(tools, 'fjord sediment cores', before)).toBe(true);
    await client.close();
    expect((await ping()).status).toBe(200);

    await refuseConnections(true);
    try {
      const refused = await eventually(ping, (answer) => answer.status !== 200);
      for (const answer of [refused, await initialize()]) {
        expect(answer.status).toBe(503);
        expect(answer.json.error?.data?.code).toBe('UNAVAILABLE');
      }
      await sleep(3_000); // long enough for every loop and LISTEN to fail and back off at least once
    } finally {
      await refuseConnections(false);
    }
    expect((await eventually(ping, (answer) => answer.status === 200)).status).toBe(200);
    expect((await initialize()).status).toBe(200);

    const reconnected = await eventually(
      () => connectClient(gateway.url, gateway.token, 'modern').catch(() => undefined),
      (c) => c !== undefined,
    );
    const again = toolsOf(reconnected!);
    const step = (await again.ok('get_next_step', { planId })).data.step;
    await again.ok('submit_step_result', { planId, stepId: step.stepId, result: { summary: 'Found the cores.' } });
    expect((await again.ok('get_plan_status', { planId })).data.progress).toBeGreaterThan(0);
    const after = (
      await again.ok('store_research', {
        artifactType: 'finding',
        title: 'After',
        content: { n: 2 },
        contentText: 'Varve counts date the moraine to 11,700 years.',
        planId,
      })
    ).data.id as string;
    expect(await found(again, 'varve counts moraine', after)).toBe(true);
    expect(await found(again, 'fjord sediment cores', before, 1_000)).toBe(true);
    await reconnected!.close();
  });
});
