import { DEFAULT_PORTS, databaseUrlField, env, grpcServiceFields, loadConfig, z } from '@quarry/config';
import { createHeuristicProvider } from './heuristic/extractor.js';
import { ANTHROPIC_DEFAULT_MODEL, createAnthropicProvider } from './providers/anthropic.js';
import { createOpenAiProvider } from './providers/openai.js';
import type { ExtractionProviders } from './selection.js';

/** An endpoint: http or https only (`localhost:11434` alone would parse as a URL with scheme `localhost:`). */
const httpUrl = () => z.url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. http://localhost:11434/v1' });

const EXTRACTION_PROVIDERS = ['auto', 'anthropic', 'openai', 'sampling', 'heuristic'] as const;

/**
 * Every variable the extraction service reads; validated once at startup, frozen afterwards.
 * A provider named explicitly must be usable, so a missing key or model fails at startup rather
 * than at the first call. In `auto`, Anthropic is configured by ANTHROPIC_API_KEY and an
 * OpenAI-compatible endpoint by OPENAI_MODEL (an OPENAI_API_KEY alone names no model, and a
 * shell often has one set for other tools).
 */
/** The model side of the configuration: shared by the service alone and by `quarry start`. */
const extractionModelsConfigShape = {
  EXTRACTION_PROVIDER: z
    .enum(EXTRACTION_PROVIDERS)
    .default('auto')
    .describe(
      "auto: the client's model (sampling) when offered, else Anthropic, else OpenAI-compatible, else the offline heuristic",
    ),
  ANTHROPIC_API_KEY: z.string().min(1).optional(),
  ANTHROPIC_MODEL: z.string().min(1).default(ANTHROPIC_DEFAULT_MODEL),
  ANTHROPIC_BASE_URL: httpUrl().optional(),
  OPENAI_BASE_URL: httpUrl()
    .optional()
    .describe('any OpenAI-compatible endpoint (Ollama, vLLM, llama.cpp); default https://api.openai.com/v1'),
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_MODEL: z.string().min(1).optional(),
  EXTRACTION_TIMEOUT: env.duration('60s').describe('budget of one model call, retries included'),
  EXTRACTION_MAX_TOKENS: z.coerce.number().int().min(1).max(1_000_000).default(4096),
  EXTRACTION_SAMPLING: env
    .bool(true)
    .describe('offer extraction with their own model to clients that declare MCP sampling'),
  EXTRACTION_HANDLE_KEY: z
    .string()
    .min(32, 'must be at least 32 characters (e.g. openssl rand -base64 48)')
    .optional()
    .describe(
      'signs submit_extraction handles; every extraction replica needs the same one (quarry start generates one; else derived from QUARRY_IDENTITY_KEY)',
    ),
  EXTRACTION_HANDLE_TTL: env
    .duration('30m')
    .describe('how long a submit_extraction handle can be submitted (its schema and source are kept that long)'),
  EXTRACTION_JOB_TTL: env
    .duration('24h')
    .describe(
      'how long an extraction job (a server-model extraction that outlasted its caller’s wait) and its outcome are kept',
    ),
  EXTRACTION_JOB_LEASE: env
    .duration('30s')
    .describe(
      'how long a running job stays its instance’s without renewal; a stopped instance’s jobs resume about this much later',
    ),
  QUOTA_EXTRACTIONS_PER_DAY: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      'extractions on a server model (Anthropic, OpenAI-compatible) each org may run per UTC day unless the operator set its own; unset: no limit',
    ),
  QUOTA_MODEL_TOKENS_PER_DAY: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      'server-model tokens (input + output) each org may use per UTC day unless the operator set its own; unset: no limit',
    ),
};

type ModelsShape = z.output<z.ZodObject<typeof extractionModelsConfigShape>>;

/** Cross-field rules of the model configuration: a provider named explicitly must be usable. */
function extractionModelsRule(c: ModelsShape, ctx: z.RefinementCtx): void {
  if (c.EXTRACTION_TIMEOUT < 1)
    ctx.addIssue({ code: 'custom', path: ['EXTRACTION_TIMEOUT'], message: 'must be at least 1ms' });
  if (c.EXTRACTION_HANDLE_TTL < 1000)
    ctx.addIssue({ code: 'custom', path: ['EXTRACTION_HANDLE_TTL'], message: 'must be at least 1s' });
  if (c.EXTRACTION_JOB_TTL < 60_000)
    ctx.addIssue({ code: 'custom', path: ['EXTRACTION_JOB_TTL'], message: 'must be at least 1m' });
  if (c.EXTRACTION_JOB_LEASE < 300)
    ctx.addIssue({ code: 'custom', path: ['EXTRACTION_JOB_LEASE'], message: 'must be at least 300ms' });
  if (c.EXTRACTION_PROVIDER === 'anthropic' && !c.ANTHROPIC_API_KEY) {
    ctx.addIssue({
      code: 'custom',
      path: ['ANTHROPIC_API_KEY'],
      message: 'is required when EXTRACTION_PROVIDER=anthropic',
    });
  }
  if (c.EXTRACTION_PROVIDER === 'openai' && !c.OPENAI_MODEL) {
    ctx.addIssue({
      code: 'custom',
      path: ['OPENAI_MODEL'],
      message: 'is required when EXTRACTION_PROVIDER=openai (the served model id, e.g. gpt-5.1 or qwen3:8b)',
    });
  }
  if (c.EXTRACTION_PROVIDER === 'sampling' && !c.EXTRACTION_SAMPLING) {
    ctx.addIssue({
      code: 'custom',
      path: ['EXTRACTION_SAMPLING'],
      message: 'cannot be false when EXTRACTION_PROVIDER=sampling',
    });
  }
}

export const extractionModelsConfigSchema = z.object(extractionModelsConfigShape).superRefine(extractionModelsRule);
export type ExtractionModelsConfig = z.output<typeof extractionModelsConfigSchema>;

const extractionConfigSchema = z
  .object({
    ...grpcServiceFields(DEFAULT_PORTS.extraction),
    ...databaseUrlField('the app role: pending submissions and extraction jobs'),
    ARTIFACT_STORE_ADDRESS: z
      .string()
      .min(1)
      .describe('host:port of the artifact store (reads source artifacts, stores results)'),
    ...extractionModelsConfigShape,
  })
  .superRefine(extractionModelsRule);

export type ExtractionConfig = ReturnType<typeof loadExtractionConfig>;

export function loadExtractionConfig(source: Readonly<Record<string, string | undefined>> = process.env) {
  return loadConfig(extractionConfigSchema, source);
}

/**
 * The providers the configuration makes available (the heuristic always is). With an explicit
 * EXTRACTION_PROVIDER only that one (plus the heuristic) is built, so no other key is used.
 * `fetch` replaces the HTTP transport (tests).
 */
export function providersFromConfig(
  config: ExtractionModelsConfig,
  options: { fetch?: typeof globalThis.fetch } = {},
): ExtractionProviders {
  const wanted = (name: 'anthropic' | 'openai') =>
    config.EXTRACTION_PROVIDER === 'auto' || config.EXTRACTION_PROVIDER === name;
  const common = {
    timeoutMs: config.EXTRACTION_TIMEOUT,
    maxTokens: config.EXTRACTION_MAX_TOKENS,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
  return {
    heuristic: createHeuristicProvider(),
    ...(wanted('anthropic') && config.ANTHROPIC_API_KEY
      ? {
          anthropic: createAnthropicProvider({
            apiKey: config.ANTHROPIC_API_KEY,
            model: config.ANTHROPIC_MODEL,
            ...(config.ANTHROPIC_BASE_URL ? { baseURL: config.ANTHROPIC_BASE_URL } : {}),
            ...common,
          }),
        }
      : {}),
    ...(wanted('openai') && config.OPENAI_MODEL
      ? {
          openai: createOpenAiProvider({
            model: config.OPENAI_MODEL,
            ...(config.OPENAI_API_KEY ? { apiKey: config.OPENAI_API_KEY } : {}),
            ...(config.OPENAI_BASE_URL ? { baseURL: config.OPENAI_BASE_URL } : {}),
            ...common,
          }),
        }
      : {}),
  };
}

/** What `startExtraction` needs from the model configuration. */
export function extractionModelsFrom(
  config: ExtractionModelsConfig,
  options: { fetch?: typeof globalThis.fetch } = {},
) {
  return {
    providers: providersFromConfig(config, options),
    provider: config.EXTRACTION_PROVIDER,
    samplingEnabled: config.EXTRACTION_SAMPLING,
    timeoutMs: config.EXTRACTION_TIMEOUT,
    maxTokens: config.EXTRACTION_MAX_TOKENS,
    handleTtlMs: config.EXTRACTION_HANDLE_TTL,
    jobTtlMs: config.EXTRACTION_JOB_TTL,
    jobLeaseMs: config.EXTRACTION_JOB_LEASE,
    ...(config.EXTRACTION_HANDLE_KEY ? { handleKey: config.EXTRACTION_HANDLE_KEY } : {}),
    modelQuotaDefaults: {
      extractionsPerDay: config.QUOTA_EXTRACTIONS_PER_DAY,
      modelTokensPerDay: config.QUOTA_MODEL_TOKENS_PER_DAY,
    },
  };
}
