/** A source a step's result cites by its address: the artifact, the page when the address names one, the steps citing it. */
export interface CitedSource {
  address: string;
  artifactId: string;
  page?: number;
  steps: number[];
}

// An artifact's address as the search tools and fetch give it, with the page of a document's hit.
const ADDRESS =
  /quarry:\/\/artifacts\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:#page=([1-9][0-9]{0,5}))?/gi;

/** Every string inside a step's result (any JSON shape) and its summary. */
function stringsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsOf(item, out);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) stringsOf(item, out);
  return out;
}

/** What of a step citations are read from (the report's step). */
interface CitingStep {
  stepOrder: number;
  result?: unknown;
  resultSummary?: string;
}

/**
 * The sources the steps' results cite by address (quarry://artifacts/{id}, with #page=N where the
 * cited hit was on a page), each once, in the order the steps cite them. Pure.
 */
export function citedSources(steps: readonly CitingStep[]): CitedSource[] {
  const cited = new Map<string, CitedSource>();
  for (const step of [...steps].sort((a, b) => a.stepOrder - b.stepOrder)) {
    for (const text of stringsOf([step.result, step.resultSummary])) {
      for (const [, id, page] of text.matchAll(ADDRESS)) {
        const artifactId = id!.toLowerCase();
        const address = `quarry://artifacts/${artifactId}${page ? `#page=${page}` : ''}`;
        const source = cited.get(address) ?? {
          address,
          artifactId,
          ...(page ? { page: Number(page) } : {}),
          steps: [],
        };
        if (!source.steps.includes(step.stepOrder)) source.steps.push(step.stepOrder);
        cited.set(address, source);
      }
    }
  }
  return [...cited.values()];
}
