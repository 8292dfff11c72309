import { describe, expect, it } from '@jest/globals';
import { opsSnapshotOf } from '../src/operations/ops-snapshot.js';
import { prometheusSnapshot } from '../src/operations/prometheus-snapshot.js';
import { clientInstructions } from '../src/web/onboarding/client-instructions.js';

// The pure parts of the people pages: the clients' install formats, and the operations numbers
// read from the metrics the services export.

describe('client instructions', () => {
  const url = 'https://quarry.example.com/mcp';
  const byId = Object.fromEntries(clientInstructions(url).map((c) => [c.id, c]));

  it('give Claude Code its command and the web clients the URL', () => {
    expect(byId['claude-code']!.copy[0]!.value).toBe(`claude mcp add --transport http quarry ${url}`);
    expect(byId['claude-ai']!.copy[0]!.value).toBe(url);
    expect(byId.chatgpt!.copy[0]!.value).toBe(url);
    expect(byId['claude-ai']!.steps.join(' ')).not.toContain('not public HTTPS');
  });

  it('give Cursor and VS Code install links in their documented formats', () => {
    const cursor = new URL(byId.cursor!.installLink!.href);
    expect(`${cursor.protocol}//${cursor.host}${cursor.pathname}`).toBe(
      'cursor://anysphere.cursor-deeplink/mcp/install',
    );
    expect(cursor.searchParams.get('name')).toBe('quarry');
    expect(JSON.parse(Buffer.from(cursor.searchParams.get('config')!, 'base64').toString('utf8'))).toEqual({ url });
    const vscode = byId.vscode!.installLink!.href;
    expect(vscode.startsWith('vscode:mcp/install?')).toBe(true);
    expect(JSON.parse(decodeURIComponent(vscode.slice('vscode:mcp/install?'.length)))).toEqual({
      name: 'quarry',
      type: 'http',
      url,
    });
  });

  it('warn when the URL is not public HTTPS', () => {
    const local = clientInstructions('http://127.0.0.1:3000/mcp');
    expect(local.find((c) => c.id === 'claude-ai')!.steps.join(' ')).toContain('not public HTTPS');
  });
});

describe('operations snapshot', () => {
  it('reads lag, outbox depth, dead letters and failed calls by tool from the metrics', () => {
    const snapshot = opsSnapshotOf([
      { name: 'quarry_indexer_lag_seconds', values: [{ value: 4.25, labels: {} }] },
      { name: 'quarry_indexer_pending_events', values: [{ value: 17, labels: {} }] },
      { name: 'quarry_indexer_dead_letters_total', values: [{ value: 2, labels: {} }] },
      {
        name: 'quarry_gateway_tool_calls_total',
        values: [
          { value: 40, labels: { tool: 'search', outcome: 'ok', code: 'OK' } },
          { value: 3, labels: { tool: 'search', outcome: 'tool_error', code: 'UNAVAILABLE' } },
          { value: 5, labels: { tool: 'fetch', outcome: 'tool_error', code: 'NOT_FOUND' } },
          { value: 7, labels: { tool: 'get_next_step', outcome: 'input_required', code: 'OK' } },
        ],
      },
    ]);
    expect(snapshot).toMatchObject({ indexerLagSeconds: 4.25, outboxDepth: 17, deadLetters: 2, stalledPlans: null });
    expect(snapshot.errorsByTool).toEqual([
      { tool: 'fetch', code: 'NOT_FOUND', count: 5 },
      { tool: 'search', code: 'UNAVAILABLE', count: 3 },
    ]);
  });
});

describe('operations snapshot from Prometheus', () => {
  it("asks Prometheus's HTTP API and reads what it answers; a failed query is not reported", async () => {
    const asked: string[] = [];
    const answers: Record<string, Array<{ metric: Record<string, string>; value: [number, string] }>> = {
      'max(quarry_indexer_lag_seconds)': [{ metric: {}, value: [1, '12.5'] }],
      'max(quarry_indexer_pending_events)': [{ metric: {}, value: [1, '40'] }],
      'sum(quarry_indexer_dead_letters_total)': [{ metric: {}, value: [1, '1'] }],
    };
    const fakeFetch = (async (input: string | URL | Request) => {
      const query = new URL(String(input)).searchParams.get('query')!;
      asked.push(query);
      if (query.startsWith('sum by (tool, code)'))
        return Response.json({
          status: 'success',
          data: {
            resultType: 'vector',
            result: [{ metric: { tool: 'search', code: 'UNAVAILABLE' }, value: [1, '4'] }],
          },
        });
      if (query === 'max(quarry_plan_stalled_plans)') return new Response('unavailable', { status: 503 });
      return Response.json({ status: 'success', data: { resultType: 'vector', result: answers[query] ?? [] } });
    }) as typeof fetch;
    const snapshot = await prometheusSnapshot('http://prometheus.test:9090/', fakeFetch)();
    expect(asked.length).toBe(7);
    expect(snapshot).toMatchObject({
      indexerLagSeconds: 12.5,
      outboxDepth: 40,
      deadLetters: 1,
      stalledPlans: null,
      toolCallLogPending: null,
    });
    expect(snapshot.errorsByTool).toEqual([{ tool: 'search', code: 'UNAVAILABLE', count: 4 }]);
  });
});
