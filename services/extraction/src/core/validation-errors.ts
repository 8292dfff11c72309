import type { ErrorObject, ValidateFunction } from 'ajv';
import { escapePointer } from './schema-walk.js';

// What a guarded schema's validator answers: Ajv's errors as readable lines and the JSON Pointers
// of the values they are about.

export type SchemaValidation = { valid: true } | { valid: false; errors: string[]; paths: string[] };

const MAX_VALIDATION_ERRORS = 20;

export function validateWith(validateFn: ValidateFunction, data: unknown): SchemaValidation {
  if (validateFn(data)) return { valid: true };
  const all = validateFn.errors ?? [];
  const errors = all.slice(0, MAX_VALIDATION_ERRORS).map(formatError);
  if (all.length > MAX_VALIDATION_ERRORS) errors.push(`… and ${all.length - MAX_VALIDATION_ERRORS} more errors`);
  const paths = [...new Set(all.map(errorPath))];
  return { valid: false, errors, paths };
}

/** Ajv's error as one readable line: `/items/0/date must match format "date"`. */
function formatError(error: ErrorObject): string {
  const where = error.instancePath || '(root)';
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return `${where} must not have the property '${String(params.additionalProperty)}'`;
    case 'enum':
      return `${where} must be one of ${JSON.stringify(params.allowedValues)}`;
    case 'const':
      return `${where} must be ${JSON.stringify(params.allowedValue)}`;
    default:
      return `${where} ${error.message ?? 'is invalid'}`;
  }
}

/** The JSON Pointer of the value an error is about (for `required`, the missing member). */
function errorPath(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') return `${error.instancePath}/${escapePointer(String(params.missingProperty))}`;
  if (error.keyword === 'additionalProperties')
    return `${error.instancePath}/${escapePointer(String(params.additionalProperty))}`;
  return error.instancePath;
}
