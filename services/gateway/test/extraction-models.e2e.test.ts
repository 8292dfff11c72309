import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { sql, type Kysely } from 'kysely';
import { connectClient, startTestGateway } from './harness.js';
import { expectToolError, toolsOf, type CallTool } from './tool-answers.js';

// extract_data with a server-side model: the whole system configured like `quarry start` with
// OPENAI_BASE_URL/OPENAI_MODEL, talking over real HTTP to an OpenAI-compatible endpoint (a local
// server answering like vLLM or Ollama do). What the model spent is recorded in the tool-call
// log, on success and on failure.

const SOURCE = 'Order 7731 was shipped on 2024-06-02 to Ada Lovelace. Weight: 2.5 kg.';
const SCHEMA = {
  type: 'object',
  properties: {
    orderNumber: { type: 'string' },
    shippedOn: { type: 'string', format: 'date' },
    weightKg: { type: 'number' },
  },
  required: ['orderNumber'],
};

interface Exchange {
  body: Record<string, unknown>;
}

let model: Server;
const exchanges: Exchange[] = [];
let reply: (body: Record<string, unknown>) => { status: number; json: unknown } = () => ({ status: 500, json: {} });
let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let client: Client;
let tools: { call: CallTool; ok: CallTool };

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
}

function completion(content: string, promptTokens: number, completionTokens: number) {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'local-qwen-7b',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    },
  };
}

async function lastLogRow(admin: Kysely<unknown>) {
  await gateway.runtime.flushToolCallLog();
  const { rows } = await sql<{
    outcome: string;
    error_code: string | null;
    input_tokens: number | null;
    output_tokens: number | null;
  }>`
    select outcome, error_code, input_tokens, output_tokens from gateway.mcp_tool_call_log where tool = 'extract_data' order by id desc limit 1`.execute(
    admin,
  );
  return rows[0];
}

beforeAll(async () => {
  model = createServer((request, response) => {
    void readJson(request).then((body) => {
      exchanges.push({ body });
      const { status, json } = reply(body);
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    });
  });
  await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
  const address = model.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  gateway = await startTestGateway({
    OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`,
    OPENAI_MODEL: 'local-qwen-7b',
    OPENAI_API_KEY: 'sk-test',
  });
  client = await connectClient(gateway.url, gateway.token, 'legacy');
  tools = toolsOf(client);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await gateway?.close();
  await new Promise((resolve) => model?.close(resolve));
});

describe('extract_data with an OpenAI-compatible server model', () => {
  it('sends the schema as response_format json_schema, stores the answer and logs the tokens', async () => {
    reply = () => ({
      status: 200,
      json: completion(JSON.stringify({ orderNumber: '7731', shippedOn: '2024-06-02', weightKg: 2.5 }), 812, 37),
    });
    exchanges.length = 0;
    const answer = await tools.ok('extract_data', { sourceText: SOURCE, extractionSchema: SCHEMA });
    expect(answer.data).toMatchObject({
      provider: 'openai',
      model: 'local-qwen-7b',
      data: { orderNumber: '7731', shippedOn: '2024-06-02', weightKg: 2.5 },
    });
    expect(answer.data.fieldConfidences['/orderNumber']).toBe(1);

    expect(exchanges).toHaveLength(1);
    const body = exchanges[0]!.body;
    expect(body.model).toBe('local-qwen-7b');
    expect(body.response_format).toMatchObject({ type: 'json_schema', json_schema: { schema: SCHEMA } });
    expect(JSON.stringify(body.messages)).toContain('Order 7731 was shipped');

    expect(await lastLogRow(gateway.database.admin as Kysely<unknown>)).toEqual({
      outcome: 'ok',
      error_code: null,
      input_tokens: 812,
      output_tokens: 37,
    });
  });

  it('repairs once, sums both calls’ tokens, and logs them', async () => {
    let round = 0;
    reply = () => {
      round += 1;
      return round === 1
        ? { status: 200, json: completion('{"weightKg": "heavy"}', 500, 10) }
        : { status: 200, json: completion('{"orderNumber": "7731"}', 600, 12) };
    };
    const answer = await tools.ok('extract_data', { sourceText: SOURCE, extractionSchema: SCHEMA });
    expect(answer.data.data).toEqual({ orderNumber: '7731' });
    expect(await lastLogRow(gateway.database.admin as Kysely<unknown>)).toEqual({
      outcome: 'ok',
      error_code: null,
      input_tokens: 1100,
      output_tokens: 22,
    });
  });

  it('fails with a tool error after an invalid repair, stores nothing, and still logs what the model spent', async () => {
    reply = () => ({ status: 200, json: completion('{"weightKg": "heavy"}', 400, 9) });
    const admin = gateway.database.admin as Kysely<unknown>;
    const before = (await sql<{ n: number }>`select count(*)::int as n from artifact.extraction_results`.execute(admin))
      .rows[0]!.n;
    const answer = await tools.call('extract_data', { sourceText: SOURCE, extractionSchema: SCHEMA });
    expectToolError(answer, 'EXTRACTION_INVALID', /orderNumber/);
    // Token counts are for the log, not the model.
    expect(JSON.stringify(answer.data)).not.toContain('modelUsage');
    expect(
      (await sql<{ n: number }>`select count(*)::int as n from artifact.extraction_results`.execute(admin)).rows[0]!.n,
    ).toBe(before);
    expect(await lastLogRow(admin)).toEqual({
      outcome: 'tool_error',
      error_code: 'EXTRACTION_INVALID',
      input_tokens: 800,
      output_tokens: 18,
    });
  });

  it('turns a provider refusing the key into a clear, non-secret tool error', async () => {
    reply = () => ({
      status: 401,
      json: {
        error: {
          message: 'Incorrect API key provided: sk-test',
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      },
    });
    const answer = await tools.call('extract_data', { sourceText: SOURCE, extractionSchema: SCHEMA });
    expectToolError(answer, 'PROVIDER_FAILED', /provider/);
    expect(JSON.stringify(answer.data)).not.toContain('sk-test');
  });
});
