import type { ViewLinks } from './plan-model.js';

/**
 * The search-results view's model, and how it is made from what search_sources returns (its
 * structured content, proto3 JSON names) or, with less to explain, from the search tool's.
 */

/** How one leg of the hybrid search saw a hit: its rank there (1 is best), or absent. */
export interface SearchLegs {
  keywordRank?: number;
  semanticRank?: number;
  inKeyword: boolean;
  inSemantic: boolean;
  /** The fused Reciprocal Rank Fusion score of its place (higher is better). */
  rrfScore?: number;
}

export interface SearchHit {
  id: string;
  title: string;
  snippet?: string;
  /** What kind of stored item it is: artifact, deliverable or extraction. */
  source?: string;
  /** The page (slide, sheet) of a document the match is on. */
  page?: number;
  href?: string;
  createdAt?: string;
  tags: string[];
  /** Absent when the tool that found it does not say (the search tool). */
  legs?: SearchLegs;
}

export interface SearchView {
  query?: string;
  /** Which searches ran: hybrid, keyword or semantic. */
  mode?: string;
  queryType?: string;
  keywordMatches?: number;
  semanticMatches?: number;
  hits: SearchHit[];
}

/** search_sources' structured content. */
export interface SearchSourcesResult {
  query: string;
  queryType?: string;
  mode?: string;
  resultCount: number;
  keywordResults: number;
  semanticResults: number;
  results: {
    id: string;
    sourceId: string;
    sourceTable?: string;
    title: string;
    rrfScore: number;
    inKeyword: boolean;
    inSemantic: boolean;
    keywordRank?: number;
    semanticRank?: number;
    textSnippet: string;
    url: string;
    page?: number;
    planId?: string;
    createdAt?: string;
    tags: string[];
  }[];
}

/** The search tool's structured content. */
export interface SearchResult {
  results: { id: string; title: string; url: string }[];
}

const SOURCE_NAMES: Readonly<Record<string, string>> = {
  research_artifact: 'artifact',
  research_output: 'deliverable',
  extraction_result: 'extraction',
};

export function searchViewFrom(result: SearchSourcesResult | SearchResult, links: ViewLinks = {}): SearchView {
  if (!('resultCount' in result)) return { hits: result.results.map((hit) => ({ ...hit, href: hit.url, tags: [] })) };
  return {
    query: result.query,
    mode: result.mode,
    queryType: result.queryType,
    keywordMatches: result.keywordResults,
    semanticMatches: result.semanticResults,
    hits: result.results.map((hit) => {
      const source = hit.sourceTable ? (SOURCE_NAMES[hit.sourceTable] ?? hit.sourceTable) : undefined;
      const permalink =
        source === 'artifact'
          ? links.artifact?.(hit.id)
          : source === 'deliverable'
            ? links.output?.(hit.id)
            : undefined;
      // A hit on a document's page opens that page of the artifact's page (its url already names it).
      const href = permalink && hit.page !== undefined ? `${permalink}?page=${hit.page}` : (permalink ?? hit.url);
      return {
        id: hit.id,
        title: hit.title,
        snippet: hit.textSnippet,
        source,
        ...(hit.page !== undefined ? { page: hit.page } : {}),
        href,
        createdAt: hit.createdAt,
        tags: hit.tags,
        legs: {
          inKeyword: hit.inKeyword,
          inSemantic: hit.inSemantic,
          keywordRank: hit.keywordRank,
          semanticRank: hit.semanticRank,
          rrfScore: hit.rrfScore,
        },
      };
    }),
  };
}
