import { extractionErrors } from './errors.js';
import type { ExtractionProvider } from './types.js';

/** What EXTRACTION_PROVIDER may say. */
export type ConfiguredProvider = 'auto' | 'anthropic' | 'openai' | 'sampling' | 'heuristic';
/** Who extracts one call: `client` hands the caller's model a handle for submit_extraction. */
export type ProviderChoice = 'sampling' | 'anthropic' | 'openai' | 'heuristic' | 'client';
/** What the caller asked for (extract_data's `mode`). */
export type RequestedMode = 'auto' | 'client' | 'offline';

/** The server-side providers a service has; the offline heuristic is always there. */
export interface ExtractionProviders {
  anthropic?: ExtractionProvider;
  openai?: ExtractionProvider;
  heuristic: ExtractionProvider;
}

export interface SelectionInput {
  configured: ConfiguredProvider;
  /** The caller's `mode` (auto when not given). */
  mode?: RequestedMode;
  /** EXTRACTION_SAMPLING: whether clients that can sample are asked at all. */
  samplingEnabled: boolean;
  /** The gateway says this client can be asked (sampling declared on protocol 2026-07-28). */
  clientSamplingAvailable: boolean;
  hasAnthropic: boolean;
  hasOpenAi: boolean;
}

/**
 * Who extracts this call (pure). The caller's `mode` comes first: `client` always hands the
 * caller's model a handle, `offline` always uses the heuristic. Otherwise EXTRACTION_PROVIDER:
 * `auto` goes in this order: the client's own model when it offers sampling (zero server-side
 * model cost), else a configured API provider (Anthropic, then OpenAI-compatible), else the
 * caller's model through a handle (submit_extraction) — never a silent fallback to the offline
 * heuristic, which fills a schema only with what its rules find. An explicit choice is
 * used as is; explicit `sampling` with a client that cannot be asked is refused
 * (SAMPLING_UNAVAILABLE) rather than quietly answered by another provider the operator did not
 * choose. An explicit API provider that is not built is a wiring error (the config rejects it).
 */
export function chooseProvider(input: SelectionInput): ProviderChoice {
  if (input.mode === 'client') return 'client';
  if (input.mode === 'offline') return 'heuristic';
  const canSample = input.samplingEnabled && input.clientSamplingAvailable;
  switch (input.configured) {
    case 'auto':
      if (canSample) return 'sampling';
      if (input.hasAnthropic) return 'anthropic';
      if (input.hasOpenAi) return 'openai';
      return 'client';
    case 'sampling':
      if (!canSample) throw extractionErrors.SAMPLING_UNAVAILABLE();
      return 'sampling';
    case 'anthropic':
      if (!input.hasAnthropic)
        throw new Error('EXTRACTION_PROVIDER=anthropic, but no Anthropic provider was built (ANTHROPIC_API_KEY)');
      return 'anthropic';
    case 'openai':
      if (!input.hasOpenAi)
        throw new Error('EXTRACTION_PROVIDER=openai, but no OpenAI-compatible provider was built (OPENAI_MODEL)');
      return 'openai';
    case 'heuristic':
      return 'heuristic';
  }
}
