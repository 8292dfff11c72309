// Shared by the schema guard's test files (core-schema-guard*.test.ts).

/** A guard answer (accept or reject) must come within this, whatever the schema: a guard against hangs, not a benchmark. */
export const BOUND_MS = 2000;

export const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...extra,
});
