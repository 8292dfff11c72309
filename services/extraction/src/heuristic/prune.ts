import { compileHere } from '../core/schema-guard.js';
import { isObject, unescapePointer } from '../core/schema-walk.js';
import type { JsonSchemaObject } from '../types.js';

/**
 * The extracted data with every value the schema rejects removed (a pattern it does not match, a
 * number out of range…), so what is returned validates, except for required fields that could not
 * be found.
 */
export function dropInvalid(
  data: Record<string, unknown>,
  schema: JsonSchemaObject,
  confidences: Record<string, number>,
): Record<string, unknown> {
  const validate = compileHere(schema);
  for (let round = 0; round < 10 && !validate(data); round++) {
    const paths = (validate.errors ?? [])
      .filter((e) => e.keyword !== 'required' && e.instancePath !== '')
      .map((e) => e.instancePath);
    if (paths.length === 0) break;
    // Deepest and last items first, so removing an array item does not move one still to remove.
    for (const path of [...new Set(paths)].sort((a, b) => b.localeCompare(a, 'en', { numeric: true })))
      removeAt(data, path, confidences);
  }
  return data;
}

/** Remove the value at a JSON Pointer, and its confidences (renumbering those of later array items). */
function removeAt(root: Record<string, unknown>, pointer: string, confidences: Record<string, number>): void {
  const tokens = pointer.split('/').slice(1).map(unescapePointer);
  let parent: unknown = root;
  for (const token of tokens.slice(0, -1))
    parent = isObject(parent) || Array.isArray(parent) ? (parent as Record<string, unknown>)[token] : undefined;
  const last = tokens[tokens.length - 1]!;
  for (const key of Object.keys(confidences))
    if (key === pointer || key.startsWith(`${pointer}/`)) delete confidences[key];
  if (isObject(parent)) {
    delete parent[last];
    return;
  }
  if (!Array.isArray(parent)) return;
  const index = Number(last);
  parent.splice(index, 1);
  const base = pointer.slice(0, pointer.lastIndexOf('/'));
  for (const key of Object.keys(confidences).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))) {
    if (!key.startsWith(`${base}/`)) continue;
    const [item = '', ...rest] = key.slice(base.length + 1).split('/');
    if (!/^\d+$/.test(item) || Number(item) <= index) continue;
    confidences[[`${base}/${Number(item) - 1}`, ...rest].join('/')] = confidences[key]!;
    delete confidences[key];
  }
}
