import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { refuseConnections as refuseConnectionsTo } from '@quarry/testing';
import { connectClient, LEGACY_INIT, modernToolCall, rawPost, startTestGateway } from './harness.js';
import { sleep, toolsOf, type ToolAnswer } from './tool-calls.js';

// While PostgreSQL refuses connections (a restart, a failover, max_connections reached) the
// gateway cannot check a token it has not cached: it answers 503 with Retry-After and a JSON-RPC
// error that says to retry — not a 500 that reads like a bug — keeps running, and serves again
// as soon as the database is back, without a restart.

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
  it('is a 503 with Retry-After on every path, then the gateway serves again on its own', async () => {
    expect((await ping()).status).toBe(200);
    await refuseConnections(true);
    try {
      const refused = await eventually(ping, (answer) => answer.status !== 200);
      for (const answer of [refused, await initialize()]) {
        expect(answer.status).toBe(503);
        expect(answer.headers.get('retry-after')).toBe('2');
        expect(answer.json.error).toMatchObject({
          code: -32603,
          message: 'Quarry cannot reach its database right now; retry in a few seconds.',
          data: { code: 'UNAVAILABLE' },
        });
      }
    } finally {
      await refuseConnections(false);
    }
    expect((await eventually(ping, (answer) => answer.status === 200)).status).toBe(200);
    expect((await initialize()).status).toBe(200);
  });

  it('leaves the whole pipeline working afterwards: plans go on, content stored before and after is found', async () => {
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

    await refuseConnections(true);
    try {
      await sleep(3_000); // long enough for every loop and LISTEN to fail and back off at least once
    } finally {
      await refuseConnections(false);
    }

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
