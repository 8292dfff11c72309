import { readFile } from 'node:fs/promises';
import { Ajv } from 'ajv';
import type { Verdict } from '../citations/verdicts.js';

/**
 * The labelled set for verify_citations: research abstracts written in the style of real ones
 * (trials, cohorts, experiments across medicine, ecology, economics, engineering), each with
 * claims a deliverable might make while citing it — faithful paraphrases, overstatements, changed
 * numbers, reversed findings, invented quotations and names, and claims the abstract does not
 * address — each labelled with its verdict and the abstract's sentence that decides it (none for
 * not_enough_information). The abstracts marked `heldOut` were never used to tune the parser,
 * the ranking or the checks: the honest estimate.
 */
export interface CitationCase {
  id: string;
  title: string;
  heldOut: boolean;
  /** The abstract, one sentence per line as written. */
  source: string;
  claims: Array<{ claim: string; verdict: Verdict; evidence?: string; flags?: string[] }>;
}

const CITATION_SET = new URL('../../corpus/citations.json', import.meta.url);

const fileSchema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['id', 'title', 'heldOut', 'source', 'claims'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', minLength: 1 },
      title: { type: 'string', minLength: 1 },
      heldOut: { type: 'boolean' },
      source: { type: 'array', items: { type: 'string', minLength: 1 } },
      claims: {
        type: 'array',
        items: {
          type: 'object',
          required: ['claim', 'verdict'],
          additionalProperties: false,
          properties: {
            claim: { type: 'string', minLength: 1 },
            verdict: { enum: ['supported', 'partially_supported', 'contradicted', 'not_enough_information'] },
            evidence: { type: 'string', minLength: 1 },
            flags: { type: 'array', items: { type: 'string' } },
          },
        },
      },
    },
  },
} as const;
const validateFile = new Ajv({ allErrors: true }).compile<Array<Omit<CitationCase, 'source'> & { source: string[] }>>(
  fileSchema,
);

/** The labelled claim–source pairs (by default the package's own file), checked against the file's form. */
export async function loadCitationSet(file: URL | string = CITATION_SET): Promise<CitationCase[]> {
  const parsed: unknown = JSON.parse(await readFile(file, 'utf8'));
  if (!validateFile(parsed)) {
    const problems = (validateFile.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
    throw new Error(`${String(file)} is not a labelled citation set: ${problems}`);
  }
  return parsed.map(({ source, ...rest }) => ({ ...rest, source: source.join(' ') }));
}
