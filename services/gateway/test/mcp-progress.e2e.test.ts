import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { type Era, connectClient, startTestGateway } from './harness.js';
import { startFakeModelServer, type FakeModelServer } from './fake-model-server.js';

// Progress notifications for long calls, through the whole system with the official client SDK in
// both protocol eras: extract_data running the server's model (an OpenAI-compatible endpoint that
// takes its time) and get_plan_status waiting for a change. A client that sends a progress token
// (the SDK does when `onprogress` is given) gets notifications/progress while the call runs, on
// the call's own SSE stream; a client that sends none gets today's plain answer.

const SOURCE = 'Moby-Dick; or, The Whale, by Herman Melville. Published 1851 by Harper & Brothers.';
const SCHEMA = {
  type: 'object',
  properties: { title: { type: 'string' }, author: { type: 'string' }, year: { type: 'integer' } },
  required: ['title', 'year'],
};
const ANSWER = { title: 'Moby-Dick', author: 'Herman Melville', year: 1851 };

interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

let model: FakeModelServer;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;
const clients: Partial<Record<Era, Client>> = {};
const servedBy = async () => {
  const { body } = await gateway.runtime.deps.metricsText!();
  const count = (path: string) =>
    Number(new RegExp(`quarry_gateway_mcp_requests_total\\{[^}]*path="${path}"[^}]*\\} (\\d+)`).exec(body)?.[1] ?? 0);
  return { fast: count('fast'), sdk: count('sdk') };
};

beforeAll(async () => {
  model = await startFakeModelServer(ANSWER);
  gateway = await startTestGateway({
    EXTRACTION_PROVIDER: 'openai',
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_MODEL: 'fake-model-1',
    QUARRY_MCP_PROGRESS_INTERVAL: '200ms',
  });
  clients.legacy = await connectClient(gateway.url, gateway.token, 'legacy');
  clients.modern = await connectClient(gateway.url, gateway.token, 'modern');
}, 60_000);

afterAll(async () => {
  for (const client of Object.values(clients)) await client?.close();
  await gateway?.close();
  await model?.close();
});

describe.each(['legacy', 'modern'] as const)('progress notifications (%s era)', (era) => {
  it('reports a model call while it runs, then answers as without a token', async () => {
    const client = clients[era]!;
    model.delayMs = 1_200;
    const seen: Progress[] = [];
    const result = await client.callTool(
      { name: 'extract_data', arguments: { sourceText: SOURCE, extractionSchema: SCHEMA } },
      { onprogress: (p) => void seen.push(p) },
    );
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: 'completed', provider: 'openai', data: ANSWER });
    expect(seen.length).toBeGreaterThanOrEqual(2);
    // Every notification moves forward; a model call has no known total.
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
    expect(seen.every((p) => p.total === undefined)).toBe(true);
    expect(seen[0]!.message).toMatch(/model is working/);

    // The same call without a token: no notification, the same kind of answer.
    const plain = await client.callTool({
      name: 'extract_data',
      arguments: { sourceText: SOURCE, extractionSchema: SCHEMA },
    });
    expect(plain.structuredContent).toMatchObject({ status: 'completed', provider: 'openai', data: ANSWER });
  });

  it('reports a long poll against the seconds it was asked to wait', async () => {
    const client = clients[era]!;
    const created = await client.callTool({
      name: 'create_research_plan',
      arguments: {
        name: `Progress ${era}`,
        researchQuestion: 'Does the wait report progress?',
        steps: [{ stepType: 'search', instructions: 'Find sources' }],
        outputFormattingNotes: 'Short.',
      },
    });
    const planId = (created.structuredContent as { planId: string }).planId;
    const seen: Progress[] = [];
    const started = Date.now();
    const status = await client.callTool(
      { name: 'get_plan_status', arguments: { planId, waitSeconds: 1 } },
      { onprogress: (p) => void seen.push(p) },
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(status.structuredContent).toMatchObject({ planId });
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.every((p) => p.total === 1 && p.progress > 0 && p.progress <= 1)).toBe(true);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
  });
});

describe('the tools/call fast path', () => {
  it('takes a quick call even when it carries a progress token: only a long call has progress to report', async () => {
    const client = clients.modern!;
    const before = await servedBy();
    await client.callTool({ name: 'list_plans', arguments: {} });
    const plain = await servedBy();
    expect(plain.fast).toBe(before.fast + 1);
    const seen: Progress[] = [];
    await client.callTool({ name: 'list_plans', arguments: {} }, { onprogress: (p) => void seen.push(p) });
    const after = await servedBy();
    expect(after).toEqual({ fast: plain.fast + 1, sdk: plain.sdk });
    // A quick tool is not a long call: nothing to report.
    expect(seen).toEqual([]);
  });
});
