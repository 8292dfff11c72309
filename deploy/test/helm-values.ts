// Helm values: the `.Values` paths a template reads, and Helm's merge of values files.

/**
 * Every `.Values.a.b.c` path a template text reads (also `$.Values...`), as key lists, sorted
 * and without duplicates. Paths built at render time (`index .Values $key`, `with` scopes) are
 * out of reach of a regex and are not reported.
 */
export function valuesPaths(templateText: string): string[][] {
  const seen = new Map<string, string[]>();
  for (const match of templateText.matchAll(/(?<![\w$])\$?\.Values((?:\.[A-Za-z0-9_]+)+)/g)) {
    const keys = match[1]!.slice(1).split('.');
    seen.set(keys.join('.'), keys);
  }
  return [...seen.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, keys]) => keys);
}

/** Whether `values` has every key of `path` (the leaf may hold any value, null included). */
export function hasPath(values: unknown, path: readonly string[]): boolean {
  let node = values;
  for (const key of path) {
    if (typeof node !== 'object' || node === null || Array.isArray(node) || !Object.hasOwn(node, key)) return false;
    node = (node as Record<string, unknown>)[key];
  }
  return true;
}

/** Helm's values merge: maps merge key by key, anything else (lists included) is replaced. */
export function mergeValues(base: unknown, override: unknown): unknown {
  const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isMap(base) || !isMap(override)) return override === undefined ? base : override;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) merged[key] = mergeValues(base[key], value);
  return merged;
}
