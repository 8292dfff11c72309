import { describe, expect, it } from '@jest/globals';
import { ContractError, createToolCodec, extractionV1, mcpV1, toolCatalogue, type JsonSchema } from '@quarry/contracts';
import { CatalogueError, deriveCatalogue } from '../src/catalogue/derive.js';
import { buildModule } from './support/buf-fixture.js';
import { properties, required, tool } from './support/tools.js';

// extract_data as MCP clients see it, and the gateway's side channel (MCP sampling and
// model usage) that proto declares by type and the catalogue keeps out of both schemas.

const SCHEMA = { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] };

describe('extract_data', () => {
  const t = tool('extract_data');
  const codec = createToolCodec(t);

  it('takes the documented arguments and returns the extraction with its grounding, served by the extraction service', () => {
    expect(t.rpc.service).toBe('quarry.extraction.v1.ExtractionService');
    expect(Object.keys(properties(t.inputSchema))).toEqual([
      'sourceText',
      'sourceArtifactId',
      'extractionSchema',
      'schemaVersion',
      'planId',
      'stepId',
      'sourceUrl',
      'sourceLocation',
      'mode',
    ]);
    expect(required(t.inputSchema)).toEqual(['extractionSchema']);
    expect(properties(t.inputSchema).mode!.enum).toEqual(['auto', 'client', 'offline']);
    expect(Object.keys(properties(t.outputSchema))).toEqual([
      'extractionId',
      'data',
      'fieldConfidences',
      'overallConfidence',
      'status',
      'fields',
      'provider',
      'model',
      'handle',
      'handleStatus',
      'instructions',
      'extractionSchema',
      'sourceText',
      'expiresAt',
      'jobId',
      'pollTool',
    ]);
    expect(properties(t.outputSchema).status!.enum).toEqual(['completed', 'awaiting_submission', 'running']);
    const field = (properties(t.outputSchema).fields as { items: JsonSchema }).items;
    expect(properties(field).grounding!.enum).toEqual(['exact', 'normalised', 'numeric', 'date', 'fuzzy', 'none']);
    expect(t.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
  });

  it('keeps the gateway fields out of both schemas and names them for the gateway', () => {
    expect(t.gatewayFields).toEqual({
      callBudget: 'callBudget',
      clientSampling: 'clientSampling',
      samplingRequest: 'samplingRequest',
      modelUsage: 'modelUsage',
    });
    expect(JSON.stringify(t.inputSchema)).not.toMatch(/clientSampling|continuation|callBudget|answerWithinMs/);
    expect(JSON.stringify(t.outputSchema)).not.toMatch(/samplingRequest|modelUsage|inputTokens/);
    expect(toolCatalogue.filter((other) => other.gatewayFields).map((other) => other.name)).toEqual([
      'extract_data',
      'get_artifact',
      'get_research_output',
    ]);
  });

  const problem = (args: unknown): string | undefined => {
    try {
      codec.encodeRequest(args);
      return undefined;
    } catch (error) {
      expect(error).toBeInstanceOf(ContractError);
      return (error as Error).message;
    }
  };

  it('needs exactly one source and an extraction schema', () => {
    expect(problem({ extractionSchema: SCHEMA })).toMatch(/needs exactly one of sourceText, sourceArtifactId/);
    expect(
      problem({ sourceText: 'x', sourceArtifactId: '0b9e4a53-8a8f-4c57-9d3c-1d1f0a0c2b11', extractionSchema: SCHEMA }),
    ).toMatch(/cannot be set together/);
    expect(problem({ sourceText: 'x' })).toMatch(/extractionSchema: is required/);
    expect(problem({ sourceText: '', extractionSchema: SCHEMA })).toMatch(/sourceText/);
    expect(problem({ sourceText: 'x', extractionSchema: SCHEMA, schemaVersion: 0 })).toMatch(/schemaVersion/);
    expect(problem({ sourceText: 'x', extractionSchema: SCHEMA, sourceLocation: { page: 0 } })).toMatch(
      /sourceLocation.page/,
    );
    expect(problem({ sourceText: 'x', extractionSchema: SCHEMA, sourceUrl: 'not a url' })).toMatch(/sourceUrl/);
    expect(problem({ sourceText: 'x', extractionSchema: SCHEMA })).toBeUndefined();
  });

  it('refuses a caller that sends a gateway field itself', () => {
    expect(problem({ sourceText: 'x', extractionSchema: SCHEMA, clientSampling: { available: true } })).toMatch(
      /clientSampling: is not a known field/,
    );
  });

  it('encodes the gateway fields the gateway adds after validation', () => {
    const bytes = codec.encodeRequest(
      { sourceText: 'Title: Hello', extractionSchema: SCHEMA },
      {
        clientSampling: {
          available: true,
          answer: { text: '{"title":"Hello"}', model: 'client-model' },
          continuation: Buffer.from('state').toString('base64'),
        },
      },
    );
    const request = extractionV1.ExtractDataRequest.decode(bytes);
    expect(request.source).toEqual({ $case: 'sourceText', sourceText: 'Title: Hello' });
    expect(request.extractionSchema).toEqual(SCHEMA);
    expect(request.clientSampling).toEqual({
      available: true,
      answer: { text: '{"title":"Hello"}', model: 'client-model', stopReason: '' },
      continuation: Buffer.from('state'),
    });
  });

  it('decodes the side channel for the gateway, next to the result fields', () => {
    const bytes = extractionV1.ExtractDataResponse.encode({
      extractionId: '',
      fieldConfidences: {},
      overallConfidence: 0,
      status: extractionV1.ExtractionStatus.EXTRACTION_STATUS_UNSPECIFIED,
      fields: [],
      provider: 'sampling',
      model: '',
      handleStatus: extractionV1.HandleStatus.HANDLE_STATUS_UNSPECIFIED,
      samplingRequest: {
        systemPrompt: 'sys',
        messages: [{ role: mcpV1.SamplingRole.SAMPLING_ROLE_USER, text: 'extract' }],
        maxTokens: 2048,
        continuation: Buffer.from([1, 2, 3]),
      },
      modelUsage: { provider: 'sampling', model: 'm', inputTokens: 10, outputTokens: 5 },
    }).finish();
    const decoded = codec.decodeResponse(bytes);
    expect(decoded.samplingRequest).toEqual({
      systemPrompt: 'sys',
      messages: [{ role: 'user', text: 'extract' }],
      maxTokens: 2048,
      continuation: Buffer.from([1, 2, 3]).toString('base64'),
    });
    expect(decoded.modelUsage).toEqual({ provider: 'sampling', model: 'm', inputTokens: 10, outputTokens: 5 });
    expect(decoded).not.toHaveProperty('status');
  });
});

describe('gateway fields in proto', () => {
  const derive = (request: string, response: string) =>
    deriveCatalogue(
      buildModule({
        'quarry/side/v1/side.proto': `syntax = "proto3";
package quarry.side.v1;
import "quarry/mcp/v1/options.proto";
import "quarry/mcp/v1/sampling.proto";
service SideService {
  // Does it.
  rpc DoIt(DoItRequest) returns (DoItResponse) {
    option (quarry.mcp.v1.tool) = { name: "do_it" title: "Do it" annotations: { destructive: false } };
  }
}
message DoItRequest {
  string text = 1;
${request}
}
message DoItResponse {
  string answer = 1;
${response}
}`,
      }),
    );
  const rejection = (fn: () => unknown): string => {
    try {
      fn();
    } catch (error) {
      expect(error).toBeInstanceOf(CatalogueError);
      return (error as Error).message;
    }
    throw new Error('expected a CatalogueError');
  };

  it('finds them by type at the root and leaves them out of the schemas', () => {
    const [side] = derive(
      '  quarry.mcp.v1.ClientSampling sampling = 2;',
      '  quarry.mcp.v1.SamplingRequest ask = 2;\n  quarry.mcp.v1.ModelUsage usage = 3;',
    );
    expect(side!.gatewayFields).toEqual({ clientSampling: 'sampling', samplingRequest: 'ask', modelUsage: 'usage' });
    expect(Object.keys(properties(side!.inputSchema))).toEqual(['text']);
    expect(Object.keys(properties(side!.outputSchema))).toEqual(['answer']);
  });

  it('leaves a tool without them unchanged (no gatewayFields key)', () => {
    const [side] = derive('', '');
    expect(side).not.toHaveProperty('gatewayFields');
  });

  it('rejects a side-channel field on the wrong side, repeated, twice, or a sampling request with no way back', () => {
    expect(rejection(() => derive('  quarry.mcp.v1.ModelUsage usage = 2;', ''))).toMatch(
      /rpc quarry.side.v1.SideService.DoIt: quarry.mcp.v1.ModelUsage \(field usage\) belongs in the response, not the request/,
    );
    expect(rejection(() => derive('', '  quarry.mcp.v1.ClientSampling sampling = 2;'))).toMatch(
      /ClientSampling \(field sampling\) belongs in the request/,
    );
    expect(rejection(() => derive('  repeated quarry.mcp.v1.ClientSampling sampling = 2;', ''))).toMatch(
      /must be a singular field/,
    );
    expect(
      rejection(() => derive('  quarry.mcp.v1.ClientSampling a = 2;\n  quarry.mcp.v1.ClientSampling b = 3;', '')),
    ).toMatch(/more than one quarry.mcp.v1.ClientSampling/);
    expect(rejection(() => derive('', '  quarry.mcp.v1.SamplingRequest ask = 2;'))).toMatch(
      /needs a quarry.mcp.v1.ClientSampling request field/,
    );
  });
});

describe('free-form JSON nesting', () => {
  const codec = createToolCodec(tool('extract_data'));
  const nested = (levels: number) => {
    let value: Record<string, unknown> = { type: 'string' };
    for (let i = 1; i < levels; i++) value = { type: 'object', properties: { n: value } };
    return value;
  };
  // JSON depth of nested(k) as a whole: each schema level is two objects (the level and its properties).
  const depthOf = (value: unknown): number =>
    value && typeof value === 'object' ? 1 + Math.max(0, ...Object.values(value).map(depthOf)) : 0;

  it('sends a schema of 16 nested object levels (31 JSON levels) and refuses 17 (33)', () => {
    expect(depthOf(nested(16))).toBe(31);
    expect(
      extractionV1.ExtractDataRequest.decode(codec.encodeRequest({ sourceText: 'x', extractionSchema: nested(16) }))
        .extractionSchema,
    ).toEqual(nested(16));
    expect(depthOf(nested(17))).toBe(33);
    expect(() => codec.encodeRequest({ sourceText: 'x', extractionSchema: nested(17) })).toThrow(
      /nests objects and arrays more than 32/,
    );
  });

  it('refuses deeper JSON at the gateway naming the argument, instead of failing inside the service', () => {
    expect(() => codec.encodeRequest({ sourceText: 'x', extractionSchema: nested(40) })).toThrow(
      /extractionSchema: nests objects and arrays more than 32 levels deep, which cannot be sent; flatten it/,
    );
  });

  it('decodes the deepest JSON the limit lets through, in every shape', () => {
    let objects: Record<string, unknown> = {};
    for (let i = 1; i < 31; i++) objects = { k: objects };
    let arrays: unknown[] = [];
    for (let i = 1; i < 31; i++) arrays = [arrays];
    for (const schema of [
      { type: 'object', x: objects },
      { type: 'object', x: arrays },
    ]) {
      expect(depthOf(schema)).toBe(32);
      expect(
        extractionV1.ExtractDataRequest.decode(codec.encodeRequest({ sourceText: 'x', extractionSchema: schema }))
          .extractionSchema,
      ).toEqual(schema);
    }
  });
});
