import { readFile } from 'node:fs/promises';
import { Ajv } from 'ajv';
import type { JsonSchemaObject } from '../types.js';

/**
 * One document of the labelled corpus for the offline extractor: varied documents (invoices,
 * papers, job postings, product specs, meeting notes, lab results, emails, events, listings,
 * receipts, …) written as such documents are written (labelled lines, tables, bullet lists, plain
 * prose; ISO, US and European dates and numbers), each with the schema a client might send and the
 * data a careful person would extract. A field the document does not state is left out of
 * `expected`.
 *
 * The documents and their expected data were written before the extractor was written, and the
 * schemas name fields the way a client would, not the way the documents label them. The extractor
 * was then tuned on them (synonyms, stemming, proximity), so its scores on them are optimistic; the
 * documents marked `heldOut` were written afterwards and not tuned on.
 */
export interface CorpusDocument {
  id: string;
  kind: string;
  text: string;
  schema: JsonSchemaObject;
  expected: Record<string, unknown>;
  /**
   * Written after the extractor was tuned on the others and never used to tune it: the honest
   * estimate of how it does on documents it has not seen.
   */
  heldOut?: boolean;
}

/**
 * The corpus is test and benchmark data, not code: it lives beside the package's sources
 * (`corpus/heuristic.json`), outside src/, so it is neither compiled nor in the service's image.
 * This path resolves from src/ (tests) and dist/ (the benchmark) alike.
 */
const HEURISTIC_CORPUS = new URL('../../corpus/heuristic.json', import.meta.url);

/** The file's form: a document's text is stored as its lines, so it reads as written. */
const fileSchema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['id', 'kind', 'text', 'schema', 'expected'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', minLength: 1 },
      kind: { type: 'string', minLength: 1 },
      heldOut: { type: 'boolean' },
      text: { type: 'array', items: { type: 'string' } },
      schema: { type: 'object' },
      expected: { type: 'object' },
    },
  },
} as const;
const validateFile = new Ajv({ allErrors: true }).compile<Array<Omit<CorpusDocument, 'text'> & { text: string[] }>>(
  fileSchema,
);

/** The labelled documents of a corpus file (by default the package's own), checked against the file's form. */
export async function loadHeuristicCorpus(file: URL | string = HEURISTIC_CORPUS): Promise<CorpusDocument[]> {
  const parsed: unknown = JSON.parse(await readFile(file, 'utf8'));
  if (!validateFile(parsed)) {
    const problems = (validateFile.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
    throw new Error(`${String(file)} is not a labelled corpus: ${problems}`);
  }
  return parsed.map(({ text, ...document }) => ({ ...document, text: text.join('\n') }));
}
