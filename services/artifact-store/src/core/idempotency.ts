import { createHash } from 'node:crypto';
import stringify from 'safe-stable-stringify';
import { artifactErrors } from '../errors.js';

/**
 * Idempotent writes (docs/adr/0046-idempotent-writes.md). A storing call may carry an
 * idempotency key; the row it stores keeps the key and the hash of its request, and a later call
 * of the org with that key is answered from the first row: the same request is a replay (the first
 * ids, nothing stored, no event), another request is refused.
 */

/** The tools that store, as they name the request in its hash (a batch item is a store_research call). */
type StoringTool = 'store_research' | 'store_research_output' | 'submit_subagent_report';

/**
 * What "the same content" means: SHA-256 (hex) of the tool's name and the request's fields other
 * than the key, as the proto's JSON form (unset optional fields absent, defaults omitted) with
 * object keys sorted at every depth and no whitespace. So a retry that sends its JSON objects'
 * keys in another order is the same request; a changed value, array order or added field is not.
 */
export function requestHash(tool: StoringTool, requestJson: unknown): string {
  const { idempotencyKey: _key, ...fields } = requestJson as Record<string, unknown>;
  return createHash('sha256')
    .update(stringify({ tool, request: fields }) ?? '')
    .digest('hex');
}

/** The key and hash a row stores: none without a key. */
export function keyColumns(
  tool: StoringTool,
  idempotencyKey: string | undefined,
  requestJson: unknown,
): { idempotency_key: string | null; request_hash: string | null } {
  if (idempotencyKey === undefined) return { idempotency_key: null, request_hash: null };
  return { idempotency_key: idempotencyKey, request_hash: requestHash(tool, requestJson) };
}

/** A row already stored under a key, as the store found it. */
export interface KeyedRow {
  id: string;
  createdAt: Date;
  requestHash: string | null;
}

/** What a write whose key was already used gets: the first row again, or a refusal. */
type KeyOutcome = { kind: 'replayed'; id: string; createdAt: Date } | { kind: 'conflict'; key: string };

export function replayOrConflict(key: string, requestHashOfRetry: string | null, first: KeyedRow): KeyOutcome {
  return first.requestHash === requestHashOfRetry
    ? { kind: 'replayed', id: first.id, createdAt: first.createdAt }
    : { kind: 'conflict', key };
}

/** What became of one row to store: stored now, or answered from the first row of its key. */
export type Written = { kind: 'stored'; id: string; createdAt: Date } | KeyOutcome;

/** The row a call answers with: its own, or its key's first; IDEMPOTENCY_KEY_REUSED for other content. */
export function answerOf(written: Written): { id: string; createdAt: Date } {
  if (written.kind === 'conflict') throw artifactErrors.IDEMPOTENCY_KEY_REUSED({ key: written.key });
  return written;
}
