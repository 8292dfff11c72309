import type { mcpV1 } from '@quarry/contracts';
import { defineErrors, grpcErrors, QuarryError, status } from '@quarry/grpc';
import { SchemaRejectedError } from './core/schema-guard.js';
import { SourceTextRejectedError } from './core/source-text.js';
import { ProviderError, type ProviderErrorCode } from './providers/errors.js';
import { ExtractionInvalidError } from './repair.js';

/**
 * The extraction service's error catalogue. Codes are stable: the gateway passes them to the
 * model as the tool error's `code`. Every failure stores nothing. When model calls were made
 * before the failure, `details.modelUsage` ({provider, model, inputTokens, outputTokens}) says
 * what they cost, for the gateway's tool-call log.
 *
 * Artifact-store errors (ARTIFACT_NOT_FOUND for an unknown or foreign sourceArtifactId) and the
 * plan engine's PLAN_NOT_FOUND / STEP_NOT_FOUND (checked by the artifact store when the result is
 * stored) pass through unchanged.
 *
 * Provider messages are not passed on for transport failures: they name the endpoint, which
 * may be an internal host. Only the model's own refusal or unusable-output explanation is.
 */
export const extractionErrors = defineErrors({
  INVALID_ARGUMENT: {
    status: status.INVALID_ARGUMENT,
    message: (p: { field: string; rule: string }) => `\`${p.field}\` ${p.rule}.`,
  },
  /** The schema guard's message, naming the rule (details.rule). */
  SCHEMA_REJECTED: { status: status.INVALID_ARGUMENT, message: (p: { message: string }) => p.message },
  /** Source text empty, not text, or larger than 200 KiB (details.rule). */
  SOURCE_REJECTED: { status: status.INVALID_ARGUMENT, message: (p: { message: string }) => p.message },
  /** The data still failed schema validation (after the repair round, for models); details.errors lists all. */
  EXTRACTION_INVALID: { status: status.FAILED_PRECONDITION, message: (p: { message: string }) => p.message },
  PROVIDER_TIMEOUT: {
    status: status.DEADLINE_EXCEEDED,
    message: (p: { provider: string; seconds: number }) =>
      `The extraction model (${p.provider}) gave no answer within ${p.seconds} s. Try again later, or with a shorter source text or a smaller schema.`,
  },
  /** The org has run its server-model extractions or used its model tokens of the (UTC) day (store/model-quotas.ts). */
  QUOTA_EXCEEDED: {
    status: status.RESOURCE_EXHAUSTED,
    message: (p: { quota: string; limit: number; used: number; resetsAt: string }) =>
      `Quota ${p.quota} exceeded: your organization's limit is ${p.limit} a day and it has used ${p.used}. It ` +
      `resets at ${p.resetsAt} (midnight UTC). Until then, extract with your own model (mode "client") or offline.`,
  },
  PROVIDER_RATE_LIMITED: {
    status: status.RESOURCE_EXHAUSTED,
    message: (p: { provider: string }) =>
      `The extraction model (${p.provider}) is rate-limiting requests, also after retrying. Try again later.`,
  },
  PROVIDER_UNAVAILABLE: {
    status: status.UNAVAILABLE,
    message: (p: { provider: string }) =>
      `The extraction model (${p.provider}) is unavailable, also after retrying. Try again later.`,
  },
  /** Auth or bad request: a server-side configuration problem; the provider's text (which may quote credentials) stays in the log. */
  PROVIDER_FAILED: {
    status: status.FAILED_PRECONDITION,
    message: (p: { code: string }) =>
      `The extraction model provider refused the request (${p.code}); the server's provider configuration needs attention.`,
  },
  /** The model declined to extract (its reason, when it gave one, is in the message). */
  PROVIDER_REFUSED: { status: status.FAILED_PRECONDITION, message: (p: { message: string }) => p.message },
  /** The model's answer was not usable data (no tool call, not JSON, cut off at the token limit). */
  PROVIDER_BAD_OUTPUT: { status: status.FAILED_PRECONDITION, message: (p: { message: string }) => p.message },
  /** EXTRACTION_PROVIDER=sampling, and this client cannot be asked. */
  SAMPLING_UNAVAILABLE: {
    status: status.FAILED_PRECONDITION,
    message:
      "This server extracts with the client's model (MCP sampling), and this client did not declare sampling on protocol 2026-07-28. Use a client that supports sampling, or ask the operator to configure a model provider.",
  },
  /** The client's model answered with no usable JSON, also after the repair request. */
  SAMPLING_FAILED: { status: status.FAILED_PRECONDITION, message: (p: { message: string }) => p.message },
  /**
   * A submission handle that is not ours, tampered with, expired, or issued to another org or
   * token: all refused alike, so a handle tells nobody else anything.
   */
  HANDLE_NOT_FOUND: {
    status: status.NOT_FOUND,
    message:
      'No such extraction handle for you, or it has expired. Call extract_data again for a new handle, then submit_extraction with it.',
  },
  /** The schema or source text sent with submit_extraction is not the one the handle was issued for. */
  HANDLE_MISMATCH: {
    status: status.INVALID_ARGUMENT,
    message: (p: { field: string }) =>
      `\`${p.field}\` is not the one this handle was issued for: send exactly the ${p.field} you sent to extract_data (or call extract_data again).`,
  },
  /** No such job in the caller's org (another org's, an expired and a missing one alike). */
  JOB_NOT_FOUND: {
    status: status.NOT_FOUND,
    message: 'No such extraction job in your organization, or it has expired. Call extract_data again.',
  },
  /**
   * A job whose service instance kept stopping while it ran, given up (the maintenance sweep
   * writes it: extraction.maintain).
   */
  EXTRACTION_INTERRUPTED: {
    status: status.UNAVAILABLE,
    message: (p: { attempts: number }) =>
      `The extraction was interrupted ${p.attempts} times (the service running it stopped) and was given up. Call extract_data again.`,
  },
  /** The handle was already submitted with other data (its first result stands). */
  HANDLE_ALREADY_USED: {
    status: status.FAILED_PRECONDITION,
    message: (p: { extractionId: string }) =>
      `This handle was already submitted with other data, stored as extraction ${p.extractionId}. Call extract_data again for a new handle to submit a corrected answer.`,
  },
  /**
   * A verify_citations handle that is not ours, tampered with, expired, or another org's or
   * token's: all refused alike.
   */
  VERIFICATION_NOT_FOUND: {
    status: status.NOT_FOUND,
    message: 'No such citation verification for you, or it has expired. Call verify_citations again for a new handle.',
  },
  /** Verdicts that do not answer the claims offered (each problem named; nothing stored). */
  VERDICTS_INVALID: {
    status: status.INVALID_ARGUMENT,
    message: (p: { problems: string }) =>
      `The verdicts do not fit the verification: ${p.problems}. Send one verdict per claim without \`settled\`, each on a passage offered for that claim; nothing was stored.`,
  },
  /** The verification was already submitted with other verdicts (its report stands). */
  VERDICTS_ALREADY_SUBMITTED: {
    status: status.FAILED_PRECONDITION,
    message: (p: { reportId: string }) =>
      `This verification was already submitted with other verdicts, stored as report ${p.reportId}. Call verify_citations again to verify anew.`,
  },
});

export type ModelUsage = mcpV1.ModelUsage;

/**
 * The one place a failure becomes the error the caller sees: the core's typed errors map to
 * catalogue codes, QuarryErrors (artifact store, plan engine) keep code, status and message, and
 * anything else is returned as is (the gRPC server reports it as INTERNAL and logs it).
 * `usage` is attached as details.modelUsage when model calls were made.
 */
export function toExtractionError(
  error: unknown,
  options: { usage?: ModelUsage; timeoutMs: number; callerSignal?: AbortSignal },
): unknown {
  const withUsage = (details: Record<string, unknown> = {}) =>
    options.usage ? { ...details, modelUsage: options.usage } : details;
  if (error instanceof QuarryError) {
    if (!options.usage) return error;
    return new QuarryError(error.code, error.status, error.message, withUsage(error.details), { cause: error });
  }
  if (error instanceof SchemaRejectedError)
    return extractionErrors.SCHEMA_REJECTED({ message: error.message }, { details: { rule: error.rule } });
  if (error instanceof SourceTextRejectedError)
    return extractionErrors.SOURCE_REJECTED({ message: error.message }, { details: { rule: error.rule } });
  if (error instanceof ExtractionInvalidError) {
    return extractionErrors.EXTRACTION_INVALID(
      { message: error.message },
      { details: withUsage({ errors: [...error.errors], attempts: error.attempts }) },
    );
  }
  if (error instanceof ProviderError) return fromProviderError(error, options, withUsage);
  return error;
}

function fromProviderError(
  error: ProviderError,
  options: { timeoutMs: number; callerSignal?: AbortSignal },
  withUsage: (details?: Record<string, unknown>) => Record<string, unknown>,
): QuarryError {
  const provider = error.provider;
  const details = withUsage({
    provider,
    providerCode: error.code,
    ...(error.status === undefined ? {} : { httpStatus: error.status }),
  });
  const opts = { details, cause: error };
  const timeout = () =>
    extractionErrors.PROVIDER_TIMEOUT({ provider, seconds: Math.round(options.timeoutMs / 100) / 10 }, opts);
  const code: ProviderErrorCode = error.code;
  switch (code) {
    case 'PROVIDER_TIMEOUT':
      return timeout();
    case 'PROVIDER_RATE_LIMITED':
      return extractionErrors.PROVIDER_RATE_LIMITED({ provider }, opts);
    case 'PROVIDER_UNAVAILABLE':
      return extractionErrors.PROVIDER_UNAVAILABLE({ provider }, opts);
    case 'PROVIDER_AUTH':
    case 'PROVIDER_BAD_REQUEST':
      return extractionErrors.PROVIDER_FAILED({ code }, opts);
    case 'PROVIDER_REFUSED':
      return extractionErrors.PROVIDER_REFUSED({ message: error.message }, opts);
    case 'PROVIDER_BAD_OUTPUT':
      return extractionErrors.PROVIDER_BAD_OUTPUT({ message: error.message }, opts);
    case 'PROVIDER_ABORTED': {
      // The caller gone (cancelled or its deadline passed) or our own per-call deadline fired.
      const signal = options.callerSignal;
      if (signal?.aborted)
        return signal.reason instanceof QuarryError ? signal.reason : grpcErrors.CANCELLED({ cause: error });
      return timeout();
    }
  }
}
