// What gets indexed for each kind of row (the content.created event's title and text) and the
// text an artifact reads as: plain functions of the stored values.

/**
 * The text values of a JSON value, depth first, one per line: what gets indexed for an
 * artifact or report that has no separate text (keys and numbers carry little meaning alone).
 */
export function textOf(value: unknown): string {
  const parts: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === 'string') {
      if (v.trim()) parts.push(v.trim());
    } else if (Array.isArray(v)) {
      v.forEach(walk);
    } else if (v && typeof v === 'object') {
      Object.values(v).forEach(walk);
    }
  };
  walk(value);
  return parts.join('\n');
}

/** A title from free text: its first line, at most `max` characters (cut at a word, with …). */
export function titleFrom(text: string, max = 200): string {
  const line = text.trim().split('\n')[0]!.trim();
  if (line.length <= max) return line;
  const cut = line.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > max * 0.6 ? cut.slice(0, space) : cut}…`;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** The leaf values of a JSON value that carry text, depth first, with readable paths. */
function* leaves(value: unknown, path = ''): Generator<{ path: string; text: string }> {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* leaves(item, `${path}[${i}]`);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const segment = IDENTIFIER.test(key) ? (path ? `.${key}` : key) : `[${JSON.stringify(key)}]`;
      yield* leaves(item, path + segment);
    }
  } else if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'string') {
    // One line per value: line breaks inside a string would read as another value.
    const text = String(value).replace(/\s+/g, ' ').trim();
    if (text) yield { path, text };
  }
}

/**
 * What gets indexed for an extraction result: one line per leaf value, `path: value`, with
 * JavaScript-style paths (`authors[0].name`), so a search hit shows which field matched.
 * Nulls and blank strings say nothing and are left out; keys that are not identifiers are
 * quoted (`["first name"]`).
 */
export function extractionText(data: unknown): string {
  return Array.from(leaves(data), (leaf) => (leaf.path ? `${leaf.path}: ${leaf.text}` : leaf.text)).join('\n');
}

/**
 * An extraction result's title: "Extraction", with the schema's own `title` when it has one,
 * then its first three values (e.g. "Extraction (Paper): Attention Is All You Need · 2017"),
 * or the start of the schema hash when nothing was extracted; at most 200 characters.
 */
export function extractionTitle(schema: unknown, data: unknown, schemaHash: string): string {
  const schemaTitle =
    schema && typeof schema === 'object' && 'title' in schema && typeof schema.title === 'string'
      ? schema.title.replace(/\s+/g, ' ').trim()
      : '';
  const label = schemaTitle ? `Extraction (${schemaTitle})` : 'Extraction';
  const values: string[] = [];
  for (const leaf of leaves(data)) {
    if (values.push(leaf.text) === 3) break;
  }
  return titleFrom(values.length ? `${label}: ${values.join(' · ')}` : `${label} ${schemaHash.slice(0, 12)}`);
}

/** An artifact's readable text: its own text when it has some, else the text values of its content. */
export function artifactText(contentText: string | null, content: unknown): string {
  return contentText?.trim() ? contentText : textOf(content);
}
