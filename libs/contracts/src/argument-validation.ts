import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { FORMATS } from './catalogue/field-constraints.js';
import { type ContractIssue, joinPath } from './contract-error.js';

// Tool arguments are checked against the tool's input schema (the JSON Schema clients see)
// before anything is encoded; Ajv's errors are reported by field path, in the codec's words.

let sharedAjv: Ajv2020 | undefined;

// One validator for all tools: draft 2020-12, strict (a schema Ajv does not fully understand is
// an error at startup, not a check silently skipped), every error reported at once so a model
// can fix all its arguments in one go.
export function schemaValidator(): Ajv2020 {
  if (!sharedAjv) {
    sharedAjv = new Ajv2020({ strict: true, allErrors: true, verbose: true });
    addFormats.default(sharedAjv as never, [...FORMATS] as never);
  }
  return sharedAjv;
}

/** Ajv's errors as issues named by field path, one per field and problem. */
export function ajvIssues(errors: readonly ErrorObject[]): ContractIssue[] {
  const issues = new Map<string, ContractIssue>();
  const add = (path: string, problem: string) => issues.set(`${path}\0${problem}`, { path, problem });
  for (const error of errors) {
    // Errors inside the branches of an `anyOf` (an exactly-one oneof) restate the anyOf's own.
    if (error.schemaPath.includes('/anyOf/')) continue;
    const path = pointerToPath(error.instancePath);
    const params = error.params as Record<string, unknown>;
    const together = /\/dependentSchemas\/([^/]+)\/properties\/[^/]+\/false schema$/.exec(error.schemaPath);
    if (together) {
      add(path, `cannot be set together with ${unescapePointer(together[1]!)}`);
      continue;
    }
    switch (error.keyword) {
      case 'additionalProperties':
        add(joinPath(path, String(params.additionalProperty)), 'is not a known field');
        break;
      case 'required':
        add(joinPath(path, String(params.missingProperty)), 'is required');
        break;
      case 'enum':
        add(path, `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`);
        break;
      case 'anyOf':
        add(path, `needs exactly one of ${requiredNames(error.schema).join(', ')}`);
        break;
      default:
        add(path, error.message ?? `fails ${error.keyword}`);
    }
  }
  return [...issues.values()];
}

// The members of an exactly-one oneof group, read from the `required` lists of its `anyOf`.
function requiredNames(schema: unknown): string[] {
  const names = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === 'required' && Array.isArray(value)) value.forEach((name) => names.add(String(name)));
        else visit(value);
      }
    }
  };
  visit(schema);
  return [...names];
}

function pointerToPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map(unescapePointer)
    .reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : joinPath(path, segment)), '');
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}
