import { describe, expect, it } from '@jest/globals';
import { ContractError, createToolCodec, type JsonSchema } from '@quarry/contracts';
import { properties, required, tool } from './support/tools.js';

// search_sources as MCP clients see it: exactly the arguments and result fields the
// catalogue documents, the limit's bounds, the filter enums, and a read-only, idempotent annotation.

describe('search_sources', () => {
  const t = tool('search_sources');

  it('takes and returns exactly the documented fields, served by the search service', () => {
    expect(t.rpc.service).toBe('quarry.search.v1.SearchService');
    expect(Object.keys(properties(t.inputSchema))).toEqual([
      'query',
      'limit',
      'sourceTable',
      'artifactType',
      'planId',
      'tags',
      'createdSince',
      'createdUntil',
      'mode',
    ]);
    expect(required(t.inputSchema)).toEqual(['query']);
    expect(Object.keys(properties(t.outputSchema))).toEqual([
      'query',
      'queryType',
      'mode',
      'resultCount',
      'keywordResults',
      'semanticResults',
      'results',
    ]);
    const item = (properties(t.outputSchema).results as { items: JsonSchema }).items;
    expect(Object.keys(properties(item))).toEqual([
      'id',
      'sourceTable',
      'sourceId',
      'title',
      'rrfScore',
      'inKeyword',
      'inSemantic',
      'keywordRank',
      'semanticRank',
      'textSnippet',
      'url',
      'planId',
      'createdAt',
      'tags',
      'page',
      'instructionFlags',
    ]);
    expect(t.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
  });

  it('names the filter values as the stored data spells them', () => {
    const input = properties(t.inputSchema);
    expect(input.sourceTable!.enum).toEqual(['research_artifact', 'research_output', 'extraction_result']);
    expect(input.artifactType!.enum).toEqual([
      'analysis',
      'synthesis',
      'comparison',
      'summary',
      'source_list',
      'finding',
    ]);
    expect(input.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 50 });
    expect(input.planId!.format).toBe('uuid');
    expect(input.createdSince).toMatchObject({ type: 'string', format: 'date-time' });
    expect(input.createdUntil).toMatchObject({ type: 'string', format: 'date-time' });
    expect(properties(t.outputSchema).queryType!.enum).toEqual(['keyword', 'balanced', 'semantic']);
    expect(input.mode!.enum).toEqual(['hybrid', 'keyword', 'semantic']);
    expect(properties(t.outputSchema).mode!.enum).toEqual(['hybrid', 'keyword', 'semantic']);
  });

  const problem = (args: unknown): string | undefined => {
    try {
      createToolCodec(t).encodeRequest(args);
      return undefined;
    } catch (error) {
      expect(error).toBeInstanceOf(ContractError);
      return (error as Error).message;
    }
  };

  it('accepts well-formed arguments', () => {
    expect(problem({ query: 'glacier retreat' })).toBeUndefined();
    expect(
      problem({
        query: 'q',
        limit: 50,
        sourceTable: 'research_output',
        artifactType: 'finding',
        planId: '0b6d1c9e-6f1a-4f5e-9a51-2f8e0a4b7c10',
        tags: ['a', 'b'],
        createdSince: '2026-01-01T00:00:00Z',
        createdUntil: '2026-06-30T23:59:59.999+02:00',
      }),
    ).toBeUndefined();
  });

  it.each([
    ['query', {}],
    ['query', { query: '' }],
    ['limit', { query: 'q', limit: 0 }],
    ['limit', { query: 'q', limit: 51 }],
    ['limit', { query: 'q', limit: 2.5 }],
    ['sourceTable', { query: 'q', sourceTable: 'notes' }],
    ['artifactType', { query: 'q', artifactType: 'opinion' }],
    ['planId', { query: 'q', planId: 'plan-1' }],
    ['tags', { query: 'q', tags: ['a', 'a'] }],
    ['createdSince', { query: 'q', createdSince: 'last week' }],
    ['createdUntil', { query: 'q', createdUntil: '2026-06-30' }],
  ])('refuses a bad `%s`, naming it', (field, args) => {
    expect(problem(args)).toMatch(new RegExp(field));
  });
});
