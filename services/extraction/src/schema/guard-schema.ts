import { check } from 'recheck';
import { schemaHash } from '../core/canonical.js';
import {
  checkKeywords,
  checkRoot,
  checkShape,
  compileHere,
  DEFAULT_GUARD_OPTIONS,
  MAX_SCHEMA_BYTES,
  notCompilable,
  SchemaRejectedError,
  schemaDraft,
  type GuardedSchema,
  type GuardOptions,
  type PatternUse,
} from '../core/schema-guard.js';
import { validateWith } from '../core/validation-errors.js';
import { probeCompile } from './compile-probe.js';

// The gate's steps that take time or a thread (recheck's budgeted pattern analysis, the compile
// probe's worker) and its cache; the rules themselves are pure, in core/schema-guard.ts.

/** How many guarded schemas (accepted or rejected) are kept, by content hash, least recently used out. */
export const GUARD_CACHE_SIZE = 256;
const guarded = new Map<string, Promise<GuardedSchema>>();

/**
 * Check an untrusted schema; resolves to a compiled validator or rejects with SchemaRejectedError.
 *
 * Clients send the same schema with document after document, and the pattern and compile checks
 * cost milliseconds (seconds, for a schema built to hit the bounds), so results are cached by the
 * schema's canonical hash: a repeated schema, accepted or rejected, costs one hash. The cheap
 * shape and size checks run first, so nothing unbounded is hashed.
 */
export function guardSchema(schema: unknown, options: GuardOptions = {}): Promise<GuardedSchema> {
  const opts = { ...DEFAULT_GUARD_OPTIONS, ...options };
  try {
    checkShape(schema);
  } catch (error) {
    return Promise.reject(error);
  }
  const key = `${schemaHash(schema)}|${opts.patternTimeoutMs}|${opts.patternBudgetMs}|${opts.compileTimeoutMs}`;
  let entry = guarded.get(key);
  if (entry) guarded.delete(key);
  else entry = guardUncached(schema, opts);
  guarded.set(key, entry);
  if (guarded.size > GUARD_CACHE_SIZE) guarded.delete(guarded.keys().next().value!);
  return entry;
}

async function guardUncached(schema: unknown, opts: Required<GuardOptions>): Promise<GuardedSchema> {
  const bytes = Buffer.byteLength(JSON.stringify(schema), 'utf8');
  if (bytes > MAX_SCHEMA_BYTES) {
    throw new SchemaRejectedError(
      'too_large',
      `it is ${bytes} bytes serialized; the limit is ${MAX_SCHEMA_BYTES} bytes (64 KiB). Send a smaller schema: fewer fields, shorter descriptions, shared parts under $defs.`,
    );
  }
  const root = checkRoot(schema);
  const draft = schemaDraft(root);
  const patterns = checkKeywords(root);
  await checkPatterns(patterns, opts);
  const probe = await probeCompile(root, draft, opts.compileTimeoutMs);
  if (probe.status === 'timeout') {
    throw new SchemaRejectedError(
      'compile_timeout',
      `the schema could not be compiled within the bound: ${probe.message}. Simplify it (fewer $ref/anyOf/allOf combinations).`,
    );
  }
  if (probe.status === 'invalid') throw notCompilable(probe.message);
  const validateFn = compileHere(root, draft);
  return {
    schema: root,
    draft,
    hash: schemaHash(root),
    validate: (data) => validateWith(validateFn, data),
  };
}

/** Every distinct pattern through recheck, one at a time, within a per-pattern and an overall time budget. */
async function checkPatterns(patterns: readonly PatternUse[], opts: Required<GuardOptions>): Promise<void> {
  const deadline = Date.now() + opts.patternBudgetMs;
  const seen = new Set<string>();
  for (const { pattern, where } of patterns) {
    if (seen.has(pattern)) continue;
    seen.add(pattern);
    const left = deadline - Date.now();
    const unsafe = (why: string) =>
      new SchemaRejectedError(
        'unsafe_pattern',
        `the pattern ${JSON.stringify(pattern)} at ${where} ${why}. Use a simpler pattern without nested or overlapping repetition (like "^[A-Z]{2}-\\d{4}$"), or drop it and describe the format in "description".`,
      );
    if (left <= 0)
      throw unsafe(
        `was not checked: the schema's patterns take longer than ${opts.patternBudgetMs} ms to check together`,
      );
    const timeout = Math.min(opts.patternTimeoutMs, left);
    const diagnostics = await check(pattern, 'u', {
      checker: 'automaton',
      timeout,
      signal: AbortSignal.timeout(timeout + 250),
    });
    if (diagnostics.status === 'vulnerable') {
      throw unsafe(
        `can take ${diagnostics.complexity.type} time on some inputs (catastrophic backtracking, e.g. on ${JSON.stringify(shorten(diagnostics.attack.pattern))})`,
      );
    }
    if (diagnostics.status === 'unknown') {
      const { error } = diagnostics;
      const reason =
        error.kind === 'timeout' || error.kind === 'cancel'
          ? `could not be proven safe within ${timeout} ms`
          : error.kind === 'unsupported'
            ? `uses a ${error.message}, which cannot be proven safe (no back-references or look-around assertions)`
            : `could not be analysed (${error.kind})`;
      throw unsafe(reason);
    }
  }
}

function shorten(s: string): string {
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}
