import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/**
 * An independent validator for the tests: draft 2020-12 in strict mode (unknown keywords,
 * ignored keywords and type ambiguities are errors), with the formats the catalogue uses.
 */
export function strictAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats.default(ajv as never);
  return ajv;
}
