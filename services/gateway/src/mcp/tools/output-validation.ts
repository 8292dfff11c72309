import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/**
 * Replies are checked against each tool's output schema before they reach a client (a service
 * drifting from its contract is our bug, not the model's). Compiled once per tool at startup.
 */
export function createOutputValidator() {
  const ajv = new Ajv2020({ allErrors: false, strict: true });
  (addFormats as unknown as { default: (a: Ajv2020) => void }).default(ajv);
  return (schema: object): ValidateFunction => ajv.compile(schema);
}
