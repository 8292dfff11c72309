import { toolNames } from '@quarry/contracts';
/**
 * The resources Quarry serves: their URI templates (exactly as `resources/templates/list` shows
 * them, variable names included: completions are keyed by them), how a URI is recognised, and
 * how long a client may keep what it read (docs/adr/0030-mcp-resources.md).
 */
export type ResourceKind = 'plan' | 'report' | 'artifact' | 'output' | 'extraction' | 'job' | 'entity';

export interface ResourceTemplateEntry {
  kind: ResourceKind;
  uriTemplate: string;
  name: string;
  title: string;
  description: string;
  /** Absent where it depends on the item (a deliverable's own type). */
  mimeType?: string;
}

export const RESOURCE_TEMPLATES: readonly ResourceTemplateEntry[] = [
  {
    kind: 'plan',
    uriTemplate: 'quarry://plans/{planId}',
    name: 'plan',
    title: 'Research plan status',
    description: "A research plan's status as JSON: progress, the current step, finished and pending steps.",
    mimeType: 'application/json',
  },
  {
    kind: 'report',
    uriTemplate: 'quarry://plans/{planId}/report',
    name: 'plan-report',
    title: 'Research plan report',
    description:
      'A readable account of a research plan: its question, each step with its result and confidence, reviews, artifacts and deliverables with their quarry:// links.',
    mimeType: 'text/markdown',
  },
  {
    kind: 'artifact',
    uriTemplate: 'quarry://artifacts/{artifactId}',
    name: 'artifact',
    title: 'Research artifact',
    description: `A stored research artifact as JSON (as ${toolNames.getArtifact} returns it).`,
    mimeType: 'application/json',
  },
  {
    kind: 'output',
    uriTemplate: 'quarry://outputs/{outputId}',
    name: 'output',
    title: 'Deliverable',
    description:
      'A deliverable as stored: text (markdown, html, plain) as text, Word, Excel and PowerPoint documents as a blob, each with its MIME type.',
  },
  {
    kind: 'extraction',
    uriTemplate: 'quarry://extractions/{extractionId}',
    name: 'extraction',
    title: 'Extraction',
    description: `A stored extraction result as JSON (as ${toolNames.getExtraction} returns it).`,
    mimeType: 'application/json',
  },
  {
    kind: 'entity',
    uriTemplate: 'quarry://entities/{entityId}',
    name: 'entity',
    title: 'Entity',
    description: `An entity of the entity graph with its direct neighbours, relations and evidence, as JSON (as ${toolNames.getEntityGraph} returns it).`,
    mimeType: 'application/json',
  },
];

export interface ResourceRef {
  kind: ResourceKind;
  id: string;
}

// An id is one path segment; anything else (a query, a fragment, a further segment) names nothing.
// An extraction job (quarry://extraction-jobs/{jobId}, ADR 0044) has no template: its id only
// ever comes from the answer that links to it, and it lives a day.
const URI_PATTERN =
  /^quarry:\/\/(plans|artifacts|outputs|extractions|extraction-jobs|entities)\/([A-Za-z0-9-]{1,64})(\/report)?$/;
const KIND_OF_PATH = {
  plans: 'plan',
  artifacts: 'artifact',
  outputs: 'output',
  extractions: 'extraction',
  'extraction-jobs': 'job',
  entities: 'entity',
} as const;

/** The resource a URI names, or undefined for anything Quarry does not serve. */
export function parseResourceUri(uri: string): ResourceRef | undefined {
  const match = URI_PATTERN.exec(uri);
  if (!match) return undefined;
  const [, path, id, report] = match as unknown as [string, keyof typeof KIND_OF_PATH, string, string | undefined];
  if (report) return path === 'plans' ? { kind: 'report', id } : undefined;
  return { kind: KIND_OF_PATH[path], id };
}

export interface CacheHint {
  ttlMs: number;
  cacheScope: 'public' | 'private';
}

/**
 * Cache hints of every list and read. Everything read is one org's data: private. A plan changes
 * with every step, so its status and report are kept only briefly; stored artifacts, deliverables
 * and extractions never change (an artifact's tags do, hence its shorter time; any of them can
 * be deleted, which bounds the longer ones too); a running job changes when it ends. The
 * templates are the same for every caller.
 */
export const CACHE_HINTS = {
  templates: { ttlMs: 3_600_000, cacheScope: 'public' },
  list: { ttlMs: 10_000, cacheScope: 'private' },
  plan: { ttlMs: 5_000, cacheScope: 'private' },
  report: { ttlMs: 5_000, cacheScope: 'private' },
  artifact: { ttlMs: 60_000, cacheScope: 'private' },
  output: { ttlMs: 600_000, cacheScope: 'private' },
  extraction: { ttlMs: 600_000, cacheScope: 'private' },
  job: { ttlMs: 2_000, cacheScope: 'private' },
  // An entity's neighbourhood grows with every upsert into its graph.
  entity: { ttlMs: 10_000, cacheScope: 'private' },
} as const satisfies Record<ResourceKind | 'templates' | 'list', CacheHint>;
