/**
 * The stable address of a stored item, the `url` that read tools, fetch and search_sources
 * return so a client can cite what it found (docs/adr/0024-read-back-budget-and-urls.md). It is
 * the item's future MCP resource URI: `quarry://artifacts/{id}`, `quarry://outputs/{id}`,
 * `quarry://extractions/{id}`, always non-empty, the same for every org and deployment, and
 * never a credential (reading it still needs the caller's token and org).
 */
export type SourceTableName = 'research_artifact' | 'research_output' | 'extraction_result';

const PATHS: Readonly<Record<SourceTableName, string>> = {
  research_artifact: 'artifacts',
  research_output: 'outputs',
  extraction_result: 'extractions',
};

const URL_PATTERN = /^quarry:\/\/(artifacts|outputs|extractions)\/([^/?#]+)$/;

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
