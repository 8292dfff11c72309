// @quarry/extraction: schema-driven extraction over gRPC (quarry.extraction.v1.ExtractionService):
// an untrusted JSON Schema and a source text in, validated data with grounded per-field
// confidence out, stored through the artifact store.

// The service: runtime, configuration, errors, provider selection and the sampling exchange.
export { createExtractionService, type ExtractionServiceDeps } from './service.js';
export { toExtractedField } from './result-messages.js';
export { startExtraction, type Extraction, type ExtractionOptions } from './runtime.js';
export {
  extractionConfigSchema,
  extractionModelsConfigSchema,
  extractionModelsConfigShape,
  extractionModelsFrom,
  extractionModelsRule,
  loadExtractionConfig,
  providersFromConfig,
  EXTRACTION_PROVIDERS,
  type ExtractionConfig,
  type ExtractionModelsConfig,
} from './config.js';
export { extractionErrors, toExtractionError, type ModelUsage } from './errors.js';
export {
  chooseProvider,
  type ConfiguredProvider,
  type ExtractionProviders,
  type ProviderChoice,
  type SelectionInput,
} from './selection.js';
export {
  samplingRound,
  samplingRequestFor,
  encodeContinuation,
  decodeContinuation,
  readAnswer,
  firstJsonObject,
  sourceHash,
  clientModelName,
  CONTINUATION_VERSION,
  CLIENT_MODEL_FALLBACK,
  MAX_ANSWER_CHARS,
  type SamplingContinuation,
  type SamplingRoundInput,
  type SamplingStep,
} from './sampling.js';
export { createArtifactsClient, type ArtifactPort } from './artifacts.js';

// Model providers (Anthropic, OpenAI-compatible), their safety framing and the repair round.
export {
  buildExtractionPrompt,
  buildRepairMessage,
  buildSystemPrompt,
  delimitSource,
  neutraliseMarkers,
  SOURCE_TAG,
} from './prompt.js';
export type { ExtractionPrompt, ExtractionPromptOptions, PromptMessage } from './prompt.js';
export { ProviderError } from './providers/errors.js';
export type { ProviderErrorCode, ProviderName } from './providers/errors.js';
export {
  ANTHROPIC_DEFAULT_MODEL,
  anthropicRequestBody,
  createAnthropicProvider,
  EXTRACTION_TOOL_NAME,
} from './providers/anthropic.js';
export type { AnthropicProviderOptions } from './providers/anthropic.js';
export {
  createOpenAiProvider,
  fitsOpenAiStrictMode,
  OPENAI_DEFAULT_BASE_URL,
  openAiRequestBody,
} from './providers/openai.js';
export type { OpenAiProviderOptions } from './providers/openai.js';
export { ExtractionInvalidError, extractWithRepair, sumUsage } from './repair.js';
export type { RepairOutcome, ValidationResult } from './repair.js';

// Pure core: the schema guard, grounding and confidence; the offline heuristic extractor and its evaluation on
// the labelled corpus (corpus/heuristic.json, test and benchmark data outside src/).
export type * from './types.js';
export { guardSchema, GUARD_CACHE_SIZE } from './schema/guard-schema.js';
export {
  SchemaRejectedError,
  SourceTextRejectedError,
  checkSourceText,
  MAX_SCHEMA_BYTES,
  MAX_SCHEMA_DEPTH,
  MAX_SOURCE_TEXT_BYTES,
  MAX_VALIDATION_ERRORS,
  DEFAULT_GUARD_OPTIONS,
} from './core/schema-guard.js';
export type { GuardedSchema, GuardOptions, SchemaDraft, SchemaRule, SchemaValidation } from './core/schema-guard.js';
export { stopCompileProbe } from './schema/compile-probe.js';
export { canonicalJson, schemaHash } from './core/canonical.js';
export {
  groundValue,
  labelPolarity,
  passageSimilarity,
  wordSimilarity,
  FUZZY_THRESHOLD,
  GROUNDING_WEIGHTS,
} from './core/grounding.js';
export type { Grounding, GroundingHint } from './core/grounding.js';
export { scoreFields, ABSENT_CONFIDENCE, ABSENT_BUT_MENTIONED_CONFIDENCE } from './core/confidence.js';
export type { FieldScores } from './core/confidence.js';
export { findDates, parseDate } from './core/dates.js';
export type { DateMention } from './core/dates.js';
export { findNumbers, parseNumber } from './core/numbers.js';
export type { NumberMention } from './core/numbers.js';
export { createHeuristicProvider, extractHeuristically, HEURISTIC_MODEL } from './heuristic/extractor.js';
export { loadHeuristicCorpus } from './evaluation/corpus.js';
export type { CorpusDocument } from './evaluation/corpus.js';
export { evaluateHeuristic, formatEvaluation, FIELD_TYPES } from './evaluation/evaluate.js';
export type { EvaluationReport, FieldOutcome, FieldType, Metrics } from './evaluation/evaluate.js';
