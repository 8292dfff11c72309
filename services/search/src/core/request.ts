import type { searchV1 } from '@quarry/contracts';
import type { ChunkFilters } from '@quarry/search-index';
import { artifactTypeFilter, searchModeOf, sourceTableFilter } from '../enums.js';
import { searchErrors } from '../errors.js';
import type { HybridSearchRequest } from '../hybrid.js';

const MAX_QUERY_LENGTH = 2000;
const MAX_TAGS = 20;
const MAX_TAG_LENGTH = 100;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const invalid = (field: string, rule: string) => searchErrors.INVALID_ARGUMENT({ field, rule });

/**
 * A date bound as the engines compare it (UTC toISOString form). Years outside 0000–9999 would
 * change that form's width (and its string order), and no stored item is dated there.
 */
function instant(at: Date | undefined, field: string): string | undefined {
  if (at === undefined) return undefined;
  const iso = Number.isNaN(at.getTime()) ? '' : at.toISOString();
  if (!/^\d{4}-/.test(iso)) throw invalid(field, 'must be an RFC 3339 date-time between the years 0000 and 9999');
  return iso;
}

/**
 * A search_sources request, checked (INVALID_ARGUMENT naming the field) and turned into the hybrid
 * search's terms (enums → stored names). The org comes from the caller's verified identity only.
 */
export function toHybridRequest(req: searchV1.SearchSourcesRequest, orgId: string): HybridSearchRequest {
  const query = req.query.trim();
  if (query === '') throw invalid('query', 'must contain words to search for');
  if (query.length > MAX_QUERY_LENGTH) throw invalid('query', `must be at most ${MAX_QUERY_LENGTH} characters`);
  const limit = req.limit ?? 10;
  if (!Number.isInteger(limit) || limit < 1 || limit > 50)
    throw invalid('limit', 'must be between 1 and 50 (default 10)');

  const filters: ChunkFilters = {};
  const sourceTable = sourceTableFilter(req.sourceTable);
  if (sourceTable) filters.sourceTable = sourceTable;
  const artifactType = artifactTypeFilter(req.artifactType);
  if (artifactType) filters.artifactType = artifactType;
  if (req.planId !== undefined) {
    if (!UUID.test(req.planId)) throw invalid('planId', 'must be a plan ID (a UUID)');
    filters.planId = req.planId.toLowerCase();
  }
  if (req.tags.length > 0) {
    if (req.tags.length > MAX_TAGS) throw invalid('tags', `may list at most ${MAX_TAGS} tags`);
    if (req.tags.some((t) => t.trim() === '' || t.length > MAX_TAG_LENGTH))
      throw invalid('tags', `must each be 1 to ${MAX_TAG_LENGTH} characters, not blank`);
    if (new Set(req.tags).size !== req.tags.length) throw invalid('tags', 'must not repeat a tag');
    filters.tags = [...req.tags];
  }
  const since = instant(req.createdSince, 'createdSince');
  const until = instant(req.createdUntil, 'createdUntil');
  if (since !== undefined) filters.createdSince = since;
  if (until !== undefined) filters.createdUntil = until;
  // Same fixed-width UTC form on both sides, so string order is time order.
  if (since !== undefined && until !== undefined && since > until)
    throw invalid('createdUntil', 'must not be before createdSince');
  return { orgId, query, limit, mode: searchModeOf(req.mode), filters };
}
