import { describe, expect, it } from '@jest/globals';
import { extractionV1, toolCatalogue } from '@quarry/contracts';
import { QuarryError } from '@quarry/grpc';
import { createTools, type ToolBackend, type ToolCallLog, type ToolCallRecord } from '@quarry/gateway';
import { createLogger } from '@quarry/telemetry';
import { ADA } from './stub-deps.js';

// What a model spent is for the tool-call log, not for the model: a tool that runs one reports
// its usage in a quarry.mcp.v1.ModelUsage field of its reply (or in its error's details), and the
// dispatcher moves it into the log record — on success and on failure — and out of what the
// client sees. The backend stands in for the extraction service (its side of this is
// services/extraction/test/service-providers.test.ts); the log records in memory.

const extract = toolCatalogue.find((t) => t.name === 'extract_data')!;
const SOURCE = 'Order 7731 was shipped on 2024-06-02 to Ada Lovelace. Weight: 2.5 kg.';
const SCHEMA = { type: 'object', properties: { orderNumber: { type: 'string' } }, required: ['orderNumber'] };
const usage = (inputTokens: number, outputTokens: number) => ({
  provider: 'openai',
  model: 'local-qwen-7b',
  inputTokens,
  outputTokens,
});

function toolsAnswering(answer: () => Promise<Uint8Array>) {
  const records: ToolCallRecord[] = [];
  const log: ToolCallLog = {
    record: (entry) => void records.push(entry),
    flush: async () => {},
    pending: () => 0,
    close: async () => {},
  };
  const backend: ToolBackend = { unary: answer };
  const tools = createTools({
    catalogue: [extract],
    backends: { [extract.rpc.service]: backend },
    logger: createLogger({ service: 'test', level: 'silent' }),
    toolCallLog: log,
  });
  const call = async () => {
    const outcome = await tools.call(
      'extract_data',
      { sourceText: SOURCE, extractionSchema: SCHEMA },
      { principal: ADA, requestId: 'usage-test' },
    );
    return outcome.result!;
  };
  return { call, records };
}

const logged = (record: ToolCallRecord | undefined) =>
  record && {
    outcome: record.outcome,
    error_code: record.errorCode,
    input_tokens: record.inputTokens,
    output_tokens: record.outputTokens,
  };

describe("a model's token usage", () => {
  it('goes to the log with a successful call, and not to the client', async () => {
    const reply: extractionV1.ExtractDataResponse = {
      extractionId: '00000000-0000-4000-8000-000000007731',
      data: { orderNumber: '7731' },
      fieldConfidences: { '/orderNumber': 1 },
      overallConfidence: 1,
      status: extractionV1.ExtractionStatus.EXTRACTION_STATUS_COMPLETED,
      fields: [],
      provider: 'openai',
      model: 'local-qwen-7b',
      handleStatus: extractionV1.HandleStatus.HANDLE_STATUS_UNSPECIFIED,
      modelUsage: usage(812, 37),
    };
    const { call, records } = toolsAnswering(async () => extractionV1.ExtractDataResponse.encode(reply).finish());
    const result = await call();
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ provider: 'openai', model: 'local-qwen-7b', data: reply.data });
    expect(JSON.stringify(result)).not.toContain('modelUsage');
    expect(logged(records[0])).toEqual({ outcome: 'ok', error_code: null, input_tokens: 812, output_tokens: 37 });
  });

  it('goes to the log with a failed call too, while the error keeps its other details', async () => {
    const { call, records } = toolsAnswering(async () => {
      throw new QuarryError('EXTRACTION_INVALID', 3, 'The answer does not match the schema: orderNumber is required.', {
        modelUsage: usage(800, 18),
        attempts: 2,
      });
    });
    const result = await call();
    expect(result.structuredContent).toEqual({
      error: {
        code: 'EXTRACTION_INVALID',
        retryable: false,
        message: 'The answer does not match the schema: orderNumber is required.',
        details: { attempts: 2 },
      },
    });
    expect(JSON.stringify(result)).not.toContain('modelUsage');
    expect(logged(records[0])).toEqual({
      outcome: 'tool_error',
      error_code: 'EXTRACTION_INVALID',
      input_tokens: 800,
      output_tokens: 18,
    });
  });

  it('is left empty in the log for a failure that spent nothing', async () => {
    const { call, records } = toolsAnswering(async () => {
      throw new QuarryError('PROVIDER_FAILED', 14, 'The model provider refused the request.');
    });
    expect((await call()).structuredContent).toMatchObject({ error: { code: 'PROVIDER_FAILED', retryable: true } });
    expect(logged(records[0])).toEqual({
      outcome: 'tool_error',
      error_code: 'PROVIDER_FAILED',
      input_tokens: null,
      output_tokens: null,
    });
  });
});
