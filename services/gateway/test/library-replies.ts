import { QuarryError, status } from '@quarry/grpc';
import type { Principal } from '@quarry/gateway';
import type { ResearchRecords } from './research-records.js';
import type { StubBackends } from './stub-backend.js';

// The search service's and the artifact store's library reads, stubbed over research-records.ts
// as the services answer them: search and search_sources find the caller's organization's items
// whose title or text holds every word of the query (most recent first, at most 10), fetch reads
// one by id or quarry:// address in the caller's organization only (another org's id is missing,
// with the same error), its text in pages of FETCH_PAGE_BYTES. Addresses are quarry:// as the
// services give them: the gateway turns them into permalinks.

/** The bytes of text one fetch answers (the real store's budget is far larger; small pages show paging). */
export const FETCH_PAGE_BYTES = 2000;

interface Item {
  id: string;
  orgId: string;
  table: 'research_artifact' | 'research_output' | 'extraction_result';
  title: string;
  text: string;
  createdAt: string;
}

const PATHS = { research_artifact: 'artifacts', research_output: 'outputs', extraction_result: 'extractions' };
const TABLES = {
  research_artifact: 'SOURCE_TABLE_RESEARCH_ARTIFACT',
  research_output: 'SOURCE_TABLE_RESEARCH_OUTPUT',
  extraction_result: 'SOURCE_TABLE_EXTRACTION_RESULT',
};
const urlOf = (item: Item) => `quarry://${PATHS[item.table]}/${item.id}`;

export function answerLibraryReads(stub: StubBackends, records: ResearchRecords): void {
  const items = (principal: Principal): Item[] =>
    [
      ...records.artifacts.map((a) => ({
        ...a,
        table: 'research_artifact' as const,
        text: a.contentText ?? JSON.stringify(a.content),
      })),
      ...records.outputs
        .filter((o) => ['markdown', 'html', 'conversation'].includes(o.mediaType))
        .map((o) => ({ ...o, id: o.outputId, table: 'research_output' as const, text: o.content })),
      ...records.extractions.map((e) => ({
        ...e,
        table: 'extraction_result' as const,
        title: `Extraction (${Object.keys(e.data).join(', ')})`,
        text: JSON.stringify(e.data),
      })),
    ]
      .filter((item) => item.orgId === principal.orgId)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  const found = (query: unknown, principal: Principal) => {
    const words = String(query).toLowerCase().split(/\s+/).filter(Boolean);
    return items(principal)
      .filter((item) => words.every((w) => `${item.title} ${item.text}`.toLowerCase().includes(w)))
      .slice(0, 10);
  };

  stub.reply('search', (request, { principal }) => ({
    results: found(request.query, principal).map((item) => ({ id: item.id, title: item.title, url: urlOf(item) })),
  }));
  stub.reply('search_sources', (request, { principal }) => {
    const results = found(request.query, principal);
    return {
      query: String(request.query),
      queryType: 'QUERY_TYPE_KEYWORD',
      mode: 'SEARCH_MODE_HYBRID',
      resultCount: results.length,
      keywordResults: results.length,
      semanticResults: 0,
      results: results.map((item, i) => ({
        id: item.id,
        sourceTable: TABLES[item.table],
        sourceId: item.id,
        title: item.title,
        rrfScore: 1 / (61 + i),
        inKeyword: true,
        inSemantic: false,
        keywordRank: i + 1,
        textSnippet: item.text.slice(0, 80),
        url: urlOf(item),
        createdAt: item.createdAt,
        tags: [],
      })),
    };
  });
  stub.reply('fetch', (request, { principal }) => {
    const reference = String(request.id);
    const item = items(principal).find((i) => i.id === reference || urlOf(i) === reference);
    if (!item)
      throw new QuarryError(
        'ITEM_NOT_FOUND',
        status.NOT_FOUND,
        `No artifact, research output or extraction result ${reference} in your organization.`,
      );
    const bytes = Buffer.from(item.text);
    const offset = request.cursor === undefined ? 0 : Number(/^page@(\d+)$/.exec(String(request.cursor))?.[1] ?? NaN);
    if (!Number.isInteger(offset))
      throw new QuarryError('INVALID_CURSOR', status.INVALID_ARGUMENT, '`cursor` is not one this tool returned.');
    const end = Math.min(offset + FETCH_PAGE_BYTES, bytes.length);
    return {
      id: item.id,
      title: item.title,
      text: bytes.subarray(offset, end).toString(),
      url: urlOf(item),
      metadata: {
        source_table: item.table,
        created_at: item.createdAt,
        total_bytes: String(bytes.length),
        offset: String(offset),
        ...(end < bytes.length ? { next_cursor: `page@${end}` } : {}),
      },
    };
  });
}
