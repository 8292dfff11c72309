import { appendFileSync, existsSync, readFileSync } from 'node:fs';

// What `quarry import` has stored, so a rerun (after an interruption, a crash or a fix of the
// failed documents) sends only the rest: one JSON line per stored item, {org, key, id}, appended
// as soon as the server confirmed it. Lines of another org are kept but do not count.

export interface ImportState {
  /** Whether the item with this key was stored in the org before. */
  has(key: string): boolean;
  record(key: string, id: string): void;
  /** Items of this org already recorded when the state was opened. */
  readonly known: number;
}

export function openImportState(file: string, org: string): ImportState {
  const keys = new Set<string>();
  if (existsSync(file)) {
    const text = readFileSync(file, 'utf8');
    // A last line cut short must not swallow the next one.
    if (text && !text.endsWith('\n')) appendFileSync(file, '\n');
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        const entry = JSON.parse(line) as { org?: unknown; key?: unknown };
        if (entry.org === org && typeof entry.key === 'string') keys.add(entry.key);
      } catch {
        // A line cut short by a crash: that item is sent again.
      }
    }
  }
  const known = keys.size;
  return {
    known,
    has: (key) => keys.has(key),
    record(key, id) {
      keys.add(key);
      appendFileSync(file, `${JSON.stringify({ org, key, id, at: new Date().toISOString() })}\n`);
    },
  };
}
