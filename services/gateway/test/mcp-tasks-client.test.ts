import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import {
  createTaskSessionFromClient,
  type JsonRpcResponse,
  resultFromTaskOutcome,
} from '@modelcontextprotocol/ext-tasks/client';
import { startGatewayOnly } from './gateway-only.js';
import { connectClient } from './official-client.js';
import { slowExtraction, type SlowExtraction } from './slow-extraction.js';
import { sleep } from './tool-answers.js';

// Interoperability: the Tasks extension's own requester (@modelcontextprotocol/ext-tasks, the
// official client library) drives Quarry's tasks from an SDK client of protocol 2026-07-28. The
// SDK's Client cannot carry task wire shapes itself, so the library takes a raw dispatch: here a
// plain POST of the framed JSON-RPC request with the MCP headers, as a host application would.
// The gateway runs alone over its database; extract_data is a stub whose model takes its time.

const SOURCE = 'Moby-Dick; or, The Whale, by Herman Melville. Published 1851 by Harper & Brothers.';
const SCHEMA = {
  type: 'object',
  properties: { title: { type: 'string' }, author: { type: 'string' }, year: { type: 'integer' } },
  required: ['title', 'year'],
};
const ANSWER = { title: 'Moby-Dick', author: 'Herman Melville', year: 1851 };

let model: SlowExtraction;
let gateway: Awaited<ReturnType<typeof startGatewayOnly>>;
let client: Client;

/** The host's raw request path: one POST per JSON-RPC request, the response's result or error. */
const rawDispatch = async (request: unknown): Promise<JsonRpcResponse> => {
  const { method, params } = request as { method: string; params?: Record<string, unknown> };
  const name = method === 'tools/call' ? params?.name : params?.taskId;
  const response = await fetch(gateway.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${gateway.token}`,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...(request as object) }),
  });
  // Parsed here, not with response.json(): under Jest's VM modules fetch's objects come from
  // another realm, which the library's JSON-value check (plain prototypes) refuses.
  const body = JSON.parse(await response.text()) as {
    result?: JsonRpcResponse & object;
    error?: { code: number; message: string };
  };
  return body.error
    ? { kind: 'error', error: body.error }
    : ({ kind: 'result', result: body.result } as JsonRpcResponse);
};

const session = () =>
  createTaskSessionFromClient(client, {
    endpointId: 'quarry-test',
    // No tools/list through the SDK Client (its fetch yields objects of another realm under Jest):
    // without a declaration the library lets the server decide, as the extension has it.
    tools: { currentTool: () => undefined },
    rawDispatch,
    v2RequestFraming: {
      protocolVersion: '2026-07-28',
      clientInfo: { name: 'quarry-tests', version: '1.0.0' },
      clientCapabilities: {},
    },
  });

beforeAll(async () => {
  model = slowExtraction(ANSWER);
  gateway = await startGatewayOnly();
  gateway.stub.reply('extract_data', model.reply);
  client = await connectClient(gateway.url, gateway.token, 'modern');
}, 60_000);

afterAll(async () => {
  await client?.close();
  await gateway?.close();
});

describe('the official Tasks client', () => {
  it('sees the extension, runs extract_data as a task and settles it with the tool result', async () => {
    model.delayMs = 300;
    const tasks = session();
    try {
      expect(tasks.capabilities).toMatchObject({ cancellation: true, execution: true });
      const execution = await tasks.callTool('extract_data', { sourceText: SOURCE, extractionSchema: SCHEMA });
      expect(execution.kind).toBe('task');
      const { outcome } = await execution.settle();
      const result = resultFromTaskOutcome(outcome) as { structuredContent?: Record<string, unknown> };
      expect(result.structuredContent).toMatchObject({ status: 'completed', provider: 'openai', data: ANSWER });
    } finally {
      await tasks.close();
    }
  });

  it('cancels a running task', async () => {
    model.delayMs = 8_000;
    const aborted = model.aborted;
    const tasks = session();
    try {
      const execution = await tasks.callTool('extract_data', { sourceText: SOURCE, extractionSchema: SCHEMA });
      expect(execution.kind).toBe('task');
      await sleep(200);
      await execution.cancel();
      for (let i = 0; i < 100 && model.aborted === aborted; i++) await sleep(50);
      expect(model.aborted).toBe(aborted + 1);
    } finally {
      await tasks.close();
    }
  });
});
