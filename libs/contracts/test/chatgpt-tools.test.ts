import { describe, expect, it } from '@jest/globals';
import { ContractError, createToolCodec, type JsonSchema } from '@quarry/contracts';
import { properties, required, tool } from './support/tools.js';

// search and fetch as ChatGPT's deep research and company knowledge read a server: two tools
// named exactly so, each taking one string (query, id), answering {results: [{id, title, url}]}
// and {id, title, text, url, metadata}. Nothing in either result is linked (one text item), and
// every url is given as a permalink when the gateway has a public URL.

describe('search', () => {
  const t = tool('search');

  it('takes one required string, query, and answers results of id, title and url: read-only', () => {
    expect(t.rpc.service).toBe('quarry.search.v1.SearchService');
    expect(properties(t.inputSchema)).toEqual({
      query: expect.objectContaining({ type: 'string', minLength: 1, maxLength: 2000 }),
    });
    expect(required(t.inputSchema)).toEqual(['query']);
    expect(Object.keys(properties(t.outputSchema))).toEqual(['results']);
    const item = (properties(t.outputSchema).results as { items: JsonSchema }).items;
    // ChatGPT's three fields, always there; a hit's instruction flags only when it has some (ADR 0062).
    expect(Object.keys(properties(item))).toEqual(['id', 'title', 'url', 'instructionFlags']);
    expect(required(item)).toEqual(['id', 'title', 'url']);
    for (const field of ['id', 'title', 'url']) expect(properties(item)[field]).toMatchObject({ type: 'string' });
    expect(t.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
    expect(t.resourceLinks).toBeUndefined();
    expect(t.permalinks).toEqual([['results', 'url']]);
  });

  it('refuses a missing or empty query, naming it', () => {
    const problem = (args: unknown) => {
      try {
        createToolCodec(t).encodeRequest(args);
        return undefined;
      } catch (error) {
        expect(error).toBeInstanceOf(ContractError);
        return (error as Error).message;
      }
    };
    expect(problem({ query: 'glacier retreat' })).toBeUndefined();
    expect(problem({})).toMatch(/query/);
    expect(problem({ query: '' })).toMatch(/query/);
    expect(problem({ query: 'x', limit: 3 })).toMatch(/limit/);
  });
});

describe('fetch', () => {
  const t = tool('fetch');

  it('takes a required string id and answers id, title, text, url and metadata: read-only, nothing linked', () => {
    expect(t.rpc.service).toBe('quarry.artifact.v1.ArtifactService');
    expect(properties(t.inputSchema).id).toMatchObject({ type: 'string' });
    expect(required(t.inputSchema)).toEqual(['id']);
    expect(Object.keys(properties(t.outputSchema))).toEqual(['id', 'title', 'text', 'url', 'metadata']);
    for (const field of ['id', 'title', 'text', 'url'])
      expect(properties(t.outputSchema)[field]).toMatchObject({ type: 'string' });
    expect(properties(t.outputSchema).metadata).toMatchObject({
      type: 'object',
      additionalProperties: { type: 'string' },
    });
    expect(t.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
    expect(t.resourceLinks).toBeUndefined();
    expect(t.permalinks).toEqual([['url']]);
  });
});
