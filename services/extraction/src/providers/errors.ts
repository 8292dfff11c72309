/**
 * Typed failures of the model providers, and the one place where SDK errors become them.
 *
 * Every failure of a model call leaves the provider as a `ProviderError` whose `code` says what
 * happened and whose `retryable` says whether the same request may succeed later, so the service
 * can map it to a tool error without knowing which SDK was used. Messages are written for the
 * model that reads the tool error: they say what happened and what to do, and never contain the
 * API key (any text that comes from the provider is scrubbed of it).
 */

export type ProviderErrorCode =
  /** The model declined to answer (refusal stop, refusal message, content filter). */
  | 'PROVIDER_REFUSED'
  /** The answer was not usable data: no tool call, not JSON, or cut off at the token limit. */
  | 'PROVIDER_BAD_OUTPUT'
  /** No answer within the per-call time budget (retries included). */
  | 'PROVIDER_TIMEOUT'
  /** Still rate-limited (HTTP 429) after the retries. */
  | 'PROVIDER_RATE_LIMITED'
  /** The endpoint failed (5xx, overloaded, unreachable) after the retries. */
  | 'PROVIDER_UNAVAILABLE'
  /** The credentials were rejected (401/403) or the account cannot be used (402). */
  | 'PROVIDER_AUTH'
  /** The provider rejected the request itself (400/404/413/422: e.g. an unknown model, a schema it cannot take). */
  | 'PROVIDER_BAD_REQUEST'
  /** The caller aborted the call (its AbortSignal fired). */
  | 'PROVIDER_ABORTED';

const RETRYABLE: Readonly<Record<ProviderErrorCode, boolean>> = {
  PROVIDER_REFUSED: false,
  PROVIDER_BAD_OUTPUT: false,
  PROVIDER_TIMEOUT: true,
  PROVIDER_RATE_LIMITED: true,
  PROVIDER_UNAVAILABLE: true,
  PROVIDER_AUTH: false,
  PROVIDER_BAD_REQUEST: false,
  PROVIDER_ABORTED: false,
};

export type ProviderName = 'anthropic' | 'openai';

export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  readonly code: ProviderErrorCode;
  /** True when the same request may succeed later (timeouts, rate limits, outages). */
  readonly retryable: boolean;
  readonly provider: ProviderName;
  /** The last HTTP status, when the failure came from an HTTP response. */
  readonly status?: number;
  /** The provider's request id (for its support), when the response carried one. */
  readonly requestId?: string;

  /**
   * No `cause` is kept for HTTP failures: an SDK error quotes the response body, and a server
   * may echo the credentials there; logging the cause would leak them.
   */
  constructor(
    provider: ProviderName,
    code: ProviderErrorCode,
    message: string,
    options: { status?: number; requestId?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.provider = provider;
    this.code = code;
    this.retryable = RETRYABLE[code];
    if (options.status !== undefined) this.status = options.status;
    if (options.requestId) this.requestId = options.requestId;
  }
}

/** The error classes of a Stainless-generated SDK (both the Anthropic and the OpenAI SDK have them). */
export interface SdkErrorClasses {
  APIError: abstract new (
    ...args: never[]
  ) => Error & { status?: number | undefined; requestID?: string | null | undefined };
  APIUserAbortError: abstract new (...args: never[]) => Error;
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
  APIConnectionError: abstract new (...args: never[]) => Error;
}

export interface CallContext {
  provider: ProviderName;
  /** Display name in messages, e.g. "Anthropic" or "the OpenAI-compatible endpoint at http://…". */
  label: string;
  timeoutMs: number;
  maxRetries: number;
  /** Scrubbed from every message that quotes the provider. */
  apiKey?: string;
  sdk: SdkErrorClasses;
}

/**
 * Run one SDK call under a hard per-call deadline: `timeoutMs` for the whole call, retries and
 * their back-off sleeps included, combined with the caller's signal. The SDK gets the combined
 * signal (so the HTTP request is aborted), and the call is also raced against it, because the
 * OpenAI SDK's back-off sleep ignores the signal and could otherwise hold the caller for as long
 * as a `retry-after` header says. Whatever fails is mapped to a `ProviderError`.
 */
export async function callWithDeadline<T>(
  ctx: CallContext,
  callerSignal: AbortSignal | undefined,
  run: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  if (callerSignal?.aborted) throw cancelled(ctx, callerSignal);
  const deadline = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    deadline.abort();
  }, ctx.timeoutMs);
  const onCallerAbort = () => deadline.abort();
  callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  let onDeadline = () => {};
  const stopped = new Promise<never>((_, reject) => {
    onDeadline = () => reject(deadline.signal.reason);
    deadline.signal.addEventListener('abort', onDeadline, { once: true });
  });
  stopped.catch(() => undefined); // only observed through the race

  try {
    const call = run(deadline.signal);
    call.catch(() => undefined); // it may settle after the race is lost
    return await Promise.race([call, stopped]);
  } catch (err) {
    if (callerSignal?.aborted) throw cancelled(ctx, callerSignal);
    if (timedOut) {
      throw new ProviderError(
        ctx.provider,
        'PROVIDER_TIMEOUT',
        `${ctx.label} gave no answer within ${ctx.timeoutMs} ms (retries included). Try again later or with a shorter source text.`,
      );
    }
    throw toProviderError(ctx, err);
  } finally {
    clearTimeout(timer);
    callerSignal?.removeEventListener('abort', onCallerAbort);
    deadline.signal.removeEventListener('abort', onDeadline);
  }
}

function cancelled(ctx: CallContext, callerSignal: AbortSignal): ProviderError {
  return new ProviderError(ctx.provider, 'PROVIDER_ABORTED', `The call to ${ctx.label} was cancelled by the caller.`, {
    cause: callerSignal.reason,
  });
}

/** Map an error thrown by an SDK call (after the SDK's own retries) to a `ProviderError`. */
function toProviderError(ctx: CallContext, err: unknown): ProviderError {
  if (err instanceof ProviderError) return err;
  const { provider, label, sdk } = ctx;
  const tries = `${ctx.maxRetries + 1} attempt${ctx.maxRetries === 0 ? '' : 's'}`;
  if (err instanceof sdk.APIUserAbortError) {
    return new ProviderError(provider, 'PROVIDER_ABORTED', `The call to ${label} was aborted.`);
  }
  if (err instanceof sdk.APIConnectionTimeoutError) {
    return new ProviderError(provider, 'PROVIDER_TIMEOUT', `${label} did not answer in time (${tries}).`);
  }
  if (err instanceof sdk.APIConnectionError) {
    return new ProviderError(provider, 'PROVIDER_UNAVAILABLE', `${label} could not be reached (${tries}).`, {
      cause: err,
    });
  }
  if (err instanceof sdk.APIError && typeof err.status === 'number') {
    const status = err.status;
    const detail = providerDetail(err, ctx.apiKey);
    const opts = { status, ...(err.requestID ? { requestId: err.requestID } : {}) };
    if (status === 401 || status === 403) {
      return new ProviderError(
        provider,
        'PROVIDER_AUTH',
        `${label} rejected the API key (HTTP ${status}). Check the configured key.${detail}`,
        opts,
      );
    }
    if (status === 402) {
      return new ProviderError(
        provider,
        'PROVIDER_AUTH',
        `${label} refused the account (HTTP 402: billing).${detail}`,
        opts,
      );
    }
    if (status === 429) {
      return new ProviderError(
        provider,
        'PROVIDER_RATE_LIMITED',
        `${label} is rate-limiting requests (HTTP 429 after ${tries}). Try again later.`,
        opts,
      );
    }
    if (status === 408) {
      return new ProviderError(
        provider,
        'PROVIDER_TIMEOUT',
        `${label} timed out the request (HTTP 408 after ${tries}).`,
        opts,
      );
    }
    if (status >= 500 || status === 409) {
      return new ProviderError(
        provider,
        'PROVIDER_UNAVAILABLE',
        `${label} failed (HTTP ${status} after ${tries}). Try again later.`,
        opts,
      );
    }
    return new ProviderError(
      provider,
      'PROVIDER_BAD_REQUEST',
      `${label} rejected the request (HTTP ${status}).${detail}`,
      opts,
    );
  }
  const message = err instanceof Error ? scrub(err.message, ctx.apiKey) : 'unknown error';
  return new ProviderError(provider, 'PROVIDER_UNAVAILABLE', `The call to ${label} failed: ${truncate(message, 300)}`);
}

/** The provider's own explanation (`error.message` of the body), short and without the key. */
function providerDetail(err: Error, apiKey: string | undefined): string {
  const body = (err as { error?: unknown }).error;
  const inner = isRecord(body) && isRecord(body['error']) ? body['error'] : body;
  const message = isRecord(inner) && typeof inner['message'] === 'string' ? inner['message'] : undefined;
  return message ? ` Provider says: ${truncate(scrub(message, apiKey), 300)}` : '';
}

/** A configured count or duration: an integer of at least `min`, or a clear configuration error. */
export function integerOption(owner: string, name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min)
    throw new Error(`${owner}: ${name} must be an integer >= ${min}, got ${value}`);
  return value;
}

function scrub(text: string, secret: string | undefined): string {
  return secret && secret.length >= 4 ? text.split(secret).join('[redacted]') : text;
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
