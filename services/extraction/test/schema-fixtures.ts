// Shared by the schema guard's test files (core-schema-guard*.test.ts).

/** A guard answer (accept or reject) must come within this, whatever the schema: a guard against hangs (an unbounded compile takes minutes), not a benchmark, so it leaves room for a loaded machine. */
export const BOUND_MS = 5000;

export const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...extra,
});
