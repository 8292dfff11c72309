/**
 * Shared shapes of the extraction service. A client sends an untrusted JSON Schema and
 * a source text; a provider (a model, the client's own model via MCP sampling, or the offline
 * heuristic extractor) proposes data; the data is validated against the schema and every field
 * is scored by how well it is grounded in the source text.
 */

/** A JSON Schema as received from a client (untrusted until `guardSchema` accepted it). */
export type JsonSchemaObject = Record<string, unknown>;

export interface ExtractionRequest {
  /** The accepted schema (root is an object schema). */
  schema: JsonSchemaObject;
  /** The text to extract from: data, never instructions. */
  sourceText: string;
  /** When a previous answer failed validation: what it was and why (one repair round). */
  repair?: { previous: unknown; errors: readonly string[] };
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface ProviderAnswer {
  /** The proposed data (validated by the caller, never trusted). */
  data: unknown;
  /** Which model produced it (`heuristic-v1` for the offline extractor). */
  model: string;
  /** The provider's own confidence per top-level field path (JSON Pointer), when it gives one. */
  fieldConfidences?: Readonly<Record<string, number>>;
  usage?: TokenUsage;
}

/** One way to turn a source text into data for a schema. */
export interface ExtractionProvider {
  readonly name: 'anthropic' | 'openai' | 'sampling' | 'heuristic';
  extract(request: ExtractionRequest, options?: { signal?: AbortSignal }): Promise<ProviderAnswer>;
}

/** Where an extracted value was found in the source text (character offsets, end exclusive). */
export interface Span {
  start: number;
  end: number;
}

/**
 * How an extracted value was found in the source text, best first: `exact` substring; `normalised`
 * (case, whitespace, punctuation and diacritics ignored); `numeric` (the same number written
 * differently: 1,200 / 1200, 45% / 0.45); `date` (the same calendar day written differently:
 * 2024-03-05 / March 5, 2024 / 05/03/2024); `fuzzy` (a similar passage); `none`.
 */
export type GroundingKind = 'exact' | 'normalised' | 'numeric' | 'date' | 'fuzzy' | 'none';

export interface FieldScore {
  /** JSON Pointer of the field, e.g. `/authors/0/name`. */
  path: string;
  grounding: GroundingKind;
  span?: Span;
  confidence: number;
  /** The page (slide, sheet) of the source document the span is on, when the source has pages. */
  page?: number;
}
