import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted (recursively) and no whitespace, so two schemas that differ only in
 * key order or formatting serialize, and hash, the same. Arrays keep their order (it means
 * something in JSON Schema: `prefixItems`, `enum` order in error messages).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Hex SHA-256 of the canonical JSON: the schema's identity in stored results. */
export function schemaHash(schema: unknown): string {
  return createHash('sha256').update(canonicalJson(schema)).digest('hex');
}
