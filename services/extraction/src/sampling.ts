import { createHash, randomBytes } from 'node:crypto';
import { mcpV1 } from '@quarry/contracts';
import type { SchemaValidation } from './core/validation-errors.js';
import { extractionErrors } from './errors.js';
import { buildExtractionPrompt } from './prompt.js';
import { ExtractionInvalidError } from './repair.js';
import type { ExtractionRequest } from './types.js';

/**
 * Extraction with the calling client's own model (MCP sampling), as a stateless exchange. The
 * service never talks to the client: it answers the tool call with a SamplingRequest, the gateway
 * turns that into an MCP input-required result, the client runs it on its model and retries the
 * same call, and the gateway hands the model's answer back in ClientSampling (see
 * proto/quarry/mcp/v1/sampling.proto). Nothing is stored until an answer validates.
 *
 *   round 1  no answer                    → SamplingRequest (the extraction prompt, schema included)
 *   round 2  answer valid                 → the data (scored and stored like any provider's)
 *            answer invalid or not JSON   → SamplingRequest with the repair conversation (attempt 2)
 *   round 3  answer valid                 → the data
 *            answer invalid               → EXTRACTION_INVALID
 *            answer not JSON              → SAMPLING_FAILED
 *
 * The state between rounds travels in the continuation (opaque to the client; the gateway checks
 * that it comes back for the same caller, tool and arguments): a versioned JSON object with the
 * attempt, the prompt's source-marker nonce and the hashes of the schema and the source text, so
 * an answer is only accepted for the extraction it was asked for. The previous answer is not
 * carried: the repair request is built from the answer in hand, and a final answer needs nothing
 * from the one before.
 */

export const CONTINUATION_VERSION = 1;
/** Longest continuation accepted (ours are ~200 bytes). */
const MAX_CONTINUATION_BYTES = 4096;
/** Longest answer text searched for JSON (far above any maxTokens a client will honour). */
const MAX_ANSWER_CHARS = 512 * 1024;
/** How many `{` positions are tried as the start of the answer's JSON object. */
const MAX_JSON_STARTS = 32;
/** The model name recorded when the client did not say which model answered. */
export const CLIENT_MODEL_FALLBACK = 'client-model';

export interface SamplingContinuation {
  v: typeof CONTINUATION_VERSION;
  /** Which request the answer responds to: 1 the extraction, 2 the repair request. */
  attempt: 1 | 2;
  /** The source markers' id, kept for the repair conversation. */
  nonce: string;
  schemaHash: string;
  sourceHash: string;
}

/** What a sampling round decided. */
export type SamplingStep =
  | { kind: 'ask'; samplingRequest: mcpV1.SamplingRequest }
  | { kind: 'answered'; data: unknown; model: string; attempts: 1 | 2 };

export interface SamplingRoundInput {
  request: ExtractionRequest;
  /** The guarded schema's hash and validator. */
  schemaHash: string;
  validate: (data: unknown) => SchemaValidation;
  /** What the gateway passed (answer and continuation absent in round 1). */
  clientSampling: mcpV1.ClientSampling;
  maxTokens: number;
  /** Source-marker id for a new exchange; random by default. */
  newNonce?: () => string;
}

/** Hex SHA-256 of the source text: ties an answer to the text it was asked about. */
export function sourceHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * One round of the exchange (see the table above). Throws INVALID_ARGUMENT for a continuation
 * that is malformed or minted for another schema or source, ExtractionInvalidError when the
 * answer to the repair request still fails validation, SAMPLING_FAILED when it holds no JSON.
 */
export function samplingRound(input: SamplingRoundInput): SamplingStep {
  const { request, clientSampling } = input;
  const hashes = { schemaHash: input.schemaHash, sourceHash: sourceHash(request.sourceText) };
  const answer = clientSampling.answer;
  if (!answer) {
    const nonce = (input.newNonce ?? randomNonce)();
    return ask(request, { v: CONTINUATION_VERSION, attempt: 1, nonce, ...hashes }, input.maxTokens);
  }
  const continuation = decodeContinuation(clientSampling.continuation, hashes);
  const model = clientModelName(answer);
  const read = readAnswer(answer);
  if (read.ok) {
    const check = input.validate(read.data);
    if (check.valid) return { kind: 'answered', data: read.data, model, attempts: continuation.attempt };
    if (continuation.attempt === 2) throw new ExtractionInvalidError(check.errors, 2);
    return ask(
      { ...request, repair: { previous: read.data, errors: check.errors } },
      { ...continuation, attempt: 2 },
      input.maxTokens,
    );
  }
  if (continuation.attempt === 2) {
    throw extractionErrors.SAMPLING_FAILED({
      message: `The client's model gave no usable answer, also after a repair request: ${read.error}.`,
    });
  }
  return ask(
    { ...request, repair: { previous: answer.text, errors: [read.error] } },
    { ...continuation, attempt: 2 },
    input.maxTokens,
  );
}

/** The SamplingRequest for one attempt: the shared extraction prompt, with the schema stated in it (sampling has no structured-output parameter). */
function samplingRequestFor(
  request: ExtractionRequest,
  continuation: SamplingContinuation,
  maxTokens: number,
): mcpV1.SamplingRequest {
  const prompt = buildExtractionPrompt(request, { includeSchema: true, nonce: continuation.nonce });
  return {
    systemPrompt: prompt.system,
    messages: prompt.messages.map((m) => ({
      role: m.role === 'user' ? mcpV1.SamplingRole.SAMPLING_ROLE_USER : mcpV1.SamplingRole.SAMPLING_ROLE_ASSISTANT,
      text: m.content,
    })),
    maxTokens,
    temperature: 0,
    continuation: encodeContinuation(continuation),
  };
}

function ask(request: ExtractionRequest, continuation: SamplingContinuation, maxTokens: number): SamplingStep {
  return { kind: 'ask', samplingRequest: samplingRequestFor(request, continuation, maxTokens) };
}

export function encodeContinuation(continuation: SamplingContinuation): Buffer {
  return Buffer.from(JSON.stringify(continuation), 'utf8');
}

/** The continuation, if it is ours and minted for this schema and source; INVALID_ARGUMENT otherwise. */
export function decodeContinuation(
  bytes: Uint8Array,
  expected: { schemaHash: string; sourceHash: string },
): SamplingContinuation {
  const refuse = () =>
    extractionErrors.INVALID_ARGUMENT({
      field: 'clientSampling.continuation',
      rule: 'is not valid: the sampling continuation does not belong to this call',
    });
  if (bytes.byteLength === 0 || bytes.byteLength > MAX_CONTINUATION_BYTES) throw refuse();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    throw refuse();
  }
  if (typeof parsed !== 'object' || parsed === null) throw refuse();
  const c = parsed as Record<string, unknown>;
  const wellFormed =
    c['v'] === CONTINUATION_VERSION &&
    (c['attempt'] === 1 || c['attempt'] === 2) &&
    typeof c['nonce'] === 'string' &&
    /^[A-Za-z0-9_-]{8,64}$/.test(c['nonce']) &&
    c['schemaHash'] === expected.schemaHash &&
    c['sourceHash'] === expected.sourceHash;
  if (!wellFormed) throw refuse();
  return { v: CONTINUATION_VERSION, attempt: c['attempt'] as 1 | 2, nonce: c['nonce'] as string, ...expected };
}

/** The JSON object in a model's answer, or why there is none (phrased for the repair message). */
export function readAnswer(
  answer: mcpV1.SampledMessage,
): { ok: true; data: Record<string, unknown> } | { ok: false; error: string } {
  const text = answer.text;
  const cutOff = /max.?tokens/i.test(answer.stopReason) ? ' (it stopped at the token limit: answer more briefly)' : '';
  if (!text.trim()) return { ok: false, error: `the answer is empty${cutOff}` };
  if (text.length > MAX_ANSWER_CHARS)
    return { ok: false, error: `the answer is longer than ${MAX_ANSWER_CHARS} characters` };
  const data = firstJsonObject(text);
  if (!data)
    return {
      ok: false,
      error: `the answer contains no complete JSON object${cutOff}; answer with one JSON object only`,
    };
  return { ok: true, data };
}

/**
 * The first balanced top-level JSON object in a text: models wrap their JSON in ```json fences
 * or a sentence of prose, so the answer is searched rather than parsed whole. Braces inside
 * JSON strings are skipped; a balanced `{…}` that is not JSON (prose in braces) is passed over.
 */
export function firstJsonObject(text: string): Record<string, unknown> | undefined {
  let tries = 0;
  for (
    let start = text.indexOf('{');
    start >= 0 && tries < MAX_JSON_STARTS;
    start = text.indexOf('{', start + 1), tries++
  ) {
    const end = balancedEnd(text, start);
    if (end < 0) continue;
    try {
      return JSON.parse(text.slice(start, end)) as Record<string, unknown>;
    } catch {
      // not JSON: try the next `{`
    }
  }
  return undefined;
}

/** Index just past the `}` that closes the `{` at `start`, or -1. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === '{' || c === '[') {
      depth++;
    } else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return c === '}' ? i + 1 : -1;
      if (depth < 0) return -1;
    }
  }
  return -1;
}

/** The model the client says answered (as stored: at most 200 characters), or `client-model`. */
export function clientModelName(answer: mcpV1.SampledMessage): string {
  const name = answer.model.trim();
  return name ? name.slice(0, 200) : CLIENT_MODEL_FALLBACK;
}

function randomNonce(): string {
  return randomBytes(12).toString('hex');
}
