// @quarry/extraction: schema-driven extraction over gRPC (quarry.extraction.v1.ExtractionService):
// an untrusted JSON Schema and a source text in, validated data with grounded per-field
// confidence out, stored through the artifact store.

// The service: runtime, configuration, errors, provider selection and the sampling exchange.
export { type ExtractionServiceDeps } from './service.js';
export { startExtraction, type Extraction, type ExtractionOptions } from './runtime.js';
export {
  extractionModelsConfigSchema,
  extractionModelsFrom,
  loadExtractionConfig,
  providersFromConfig,
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
  encodeContinuation,
  decodeContinuation,
  readAnswer,
  firstJsonObject,
  sourceHash,
  CLIENT_MODEL_FALLBACK,
  type SamplingContinuation,
  type SamplingRoundInput,
  type SamplingStep,
} from './sampling.js';
export { type ArtifactPort } from './artifacts.js';
export { extractionSchemas } from './migrations/index.js';
export { grantExtractionMaintenance } from './maintenance-role.js';

// Model providers (Anthropic, OpenAI-compatible), their safety framing and the repair round.
export { buildSystemPrompt } from './prompt.js';
export type { ExtractionPrompt, ExtractionPromptOptions, PromptMessage } from './prompt.js';
export { ProviderError } from './providers/errors.js';
export type { ProviderErrorCode, ProviderName } from './providers/errors.js';
export { ANTHROPIC_DEFAULT_MODEL, createAnthropicProvider } from './providers/anthropic.js';
export type { AnthropicProviderOptions } from './providers/anthropic.js';
export { createOpenAiProvider } from './providers/openai.js';
export type { OpenAiProviderOptions } from './providers/openai.js';
export { ExtractionInvalidError } from './repair.js';
export type { RepairOutcome, ValidationResult } from './repair.js';

// Pure core: the schema guard, grounding and confidence; the offline heuristic extractor and its evaluation on
// the labelled corpus (corpus/heuristic.json, test and benchmark data outside src/).
export type * from './types.js';
export { guardSchema, GUARD_CACHE_SIZE } from './schema/guard-schema.js';
export { SchemaRejectedError, MAX_SCHEMA_BYTES, MAX_SCHEMA_DEPTH } from './core/schema-guard.js';
export type { GuardedSchema, GuardOptions, SchemaDraft, SchemaRule } from './core/schema-guard.js';
export type { SchemaValidation } from './core/validation-errors.js';
export { SourceTextRejectedError, checkSourceText, MAX_SOURCE_TEXT_BYTES } from './core/source-text.js';
export { stopCompileProbe } from './schema/compile-probe.js';
export { schemaHash } from './core/canonical.js';
export { groundValue } from './core/grounding.js';
export { labelPolarity } from './core/label-polarity.js';
export { passageSimilarity, wordSimilarity } from './core/word-similarity.js';
export type { Grounding, GroundingHint } from './core/grounding.js';
export { scoreFields } from './core/confidence.js';
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
export { calibrateGrounding, calibrateOffline, loadAbstracts, plant } from './evaluation/calibration.js';
export type { GroundingCalibration, OfflineCalibration, SeparationFigures } from './evaluation/calibration.js';

// verify_citations' pure core (claims, passages, checks) and its evaluation on the labelled set
// (corpus/citations.json), for the benchmark.
export { parseClaims, targetKey } from './citations/claim-parsing.js';
export { sourcePassages } from './citations/source-passages.js';
export { assembleVerification } from './citations/verification.js';
export { loadCitationSet } from './evaluation/citation-set.js';
export { evaluateCitations } from './evaluation/citation-evaluation.js';
