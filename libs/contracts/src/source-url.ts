/**
 * The stable address of a stored item, the `url` that read tools, fetch and search_sources
 * return so a client can cite what it found (docs/adr/0024-read-back-budget-and-urls.md). It is
 * the item's MCP resource URI: `quarry://artifacts/{id}`, `quarry://outputs/{id}`,
 * `quarry://extractions/{id}`, always non-empty, the same for every org and deployment, and
 * never a credential (reading it still needs the caller's token and org).
 *
 * With a public URL the gateway gives the item's permalink instead, `<public url>` followed by
 * `permalinkPath`: a page that opens the item for a signed-in person
 * (docs/adr/0042-chatgpt-search-and-fetch.md).
 */
export type SourceTableName = 'research_artifact' | 'research_output' | 'extraction_result';

const PATHS: Readonly<Record<SourceTableName, string>> = {
  research_artifact: 'artifacts',
  research_output: 'outputs',
  extraction_result: 'extractions',
};

/** How a permalink before the web app named each kind of item: /library/<kind>/<id> (still read). */
const LEGACY_KINDS: Readonly<Record<SourceTableName, string>> = {
  research_artifact: 'artifact',
  research_output: 'output',
  extraction_result: 'extraction',
};

const URL_PATTERN = /^quarry:\/\/(artifacts|outputs|extractions)\/([^/?#]+)$/;
// A permalink's path, after whatever base path the public URL has: the app's page, or the
// library page it replaced (which redirects there).
const PERMALINK_PATH = /\/app\/(artifacts|outputs|extractions)\/([^/?#]+)$/;
const LEGACY_PERMALINK_PATH = /\/library\/(artifact|output|extraction)\/([^/?#]+)$/;

export function sourceUrl(sourceTable: SourceTableName, id: string): string {
  return `quarry://${PATHS[sourceTable]}/${id}`;
}

/** The item a sourceUrl names, or undefined for anything else. */
export function parseSourceUrl(url: string): { sourceTable: SourceTableName; id: string } | undefined {
  const match = URL_PATTERN.exec(url);
  if (!match) return undefined;
  const sourceTable = (Object.keys(PATHS) as SourceTableName[]).find((t) => PATHS[t] === match[1])!;
  return { sourceTable, id: match[2]! };
}

/** The path of an item's permalink under the gateway's public URL: its web app page, `/app/artifacts/{id}`, … */
export function permalinkPath(sourceTable: SourceTableName, id: string): string {
  return `/app/${PATHS[sourceTable]}/${id}`;
}

/** The path a permalink had before the web app: `/library/artifact/{id}`, … */
export function legacyPermalinkPath(sourceTable: SourceTableName, id: string): string {
  return `/library/${LEGACY_KINDS[sourceTable]}/${id}`;
}

/**
 * The item a permalink's path names (`/app/<kinds>/<id>`, or the former `/library/<kind>/<id>`,
 * after any base path), or undefined.
 */
export function parsePermalinkPath(path: string): { sourceTable: SourceTableName; id: string } | undefined {
  const match = PERMALINK_PATH.exec(path);
  if (match) {
    const sourceTable = (Object.keys(PATHS) as SourceTableName[]).find((t) => PATHS[t] === match[1])!;
    return { sourceTable, id: match[2]! };
  }
  const legacy = LEGACY_PERMALINK_PATH.exec(path);
  if (!legacy) return undefined;
  const sourceTable = (Object.keys(LEGACY_KINDS) as SourceTableName[]).find((t) => LEGACY_KINDS[t] === legacy[1])!;
  return { sourceTable, id: legacy[2]! };
}

/**
 * The item a reference names: its sourceUrl, or a permalink (an http or https URL whose path is a
 * permalink path). A permalink is read by its path whatever its host, so the links a deployment
 * gave out before its public URL changed still name their items; reading one still needs the
 * caller's org.
 */
export function parseItemReference(reference: string): { sourceTable: SourceTableName; id: string } | undefined {
  const named = parseSourceUrl(reference);
  if (named || !/^https?:\/\//i.test(reference)) return named;
  try {
    const { pathname, search, hash } = new URL(reference);
    return search || hash ? undefined : parsePermalinkPath(pathname);
  } catch {
    return undefined;
  }
}
