import type { SchemaValidation } from './core/validation-errors.js';
import { extractionErrors } from './errors.js';

/** How many validation errors the message lists (details.errors has all). */
const ERRORS_SHOWN = 10;

/**
 * EXTRACTION_INVALID for data submitted by the caller's model that fails the schema: the message
 * names the fields (JSON Pointers) and what is wrong with each, so the model can correct them and
 * submit again with the same handle; nothing was stored.
 */
export function invalidAnswer(check: Extract<SchemaValidation, { valid: false }>) {
  const fields = [...new Set(check.paths.map((p) => p || '/'))];
  const shown = check.errors.slice(0, ERRORS_SHOWN).join('; ');
  const more = check.errors.length > ERRORS_SHOWN ? ` (and ${check.errors.length - ERRORS_SHOWN} more)` : '';
  return extractionErrors.EXTRACTION_INVALID(
    {
      message:
        `The data does not match the schema at ${fields.join(', ')}: ${shown}${more}. ` +
        'Nothing was stored. Correct these fields and call submit_extraction again with the same handle.',
    },
    { details: { errors: check.errors, fields, provider: 'client' } },
  );
}
