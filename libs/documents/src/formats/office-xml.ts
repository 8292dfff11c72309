import { DOMParser, onErrorStopParsing, type Document, type Element } from '@xmldom/xmldom';
import { posix } from 'node:path';
import { DocumentError } from '../document-error.js';
import type { Archive } from './zip-archive.js';

export type { Element };

// xmldom expands no external entities and fetches nothing, so a part cannot reach outside the file.
const parser = new DOMParser({ onError: onErrorStopParsing });

/** A part of the archive as XML; a part that is missing or not well-formed is CORRUPT. */
export function readXml(archive: Archive, name: string): Document {
  const text = archive.text(name);
  if (text === undefined) throw new DocumentError('CORRUPT', `the file has no ${name}`);
  try {
    return parser.parseFromString(text, 'text/xml');
  } catch (error) {
    throw new DocumentError('CORRUPT', `${name} is not well-formed XML: ${(error as Error).message}`);
  }
}

/** The elements named `localName` (any namespace prefix) under `node`, in document order. */
export function elements(node: Document | Element, localName: string): Element[] {
  return Array.from(node.getElementsByTagNameNS('*', localName));
}

/** The direct children of `node` named `localName`. */
export function children(node: Element, localName: string): Element[] {
  return Array.from(node.childNodes).filter(
    (child): child is Element => child.nodeType === 1 && (child as Element).localName === localName,
  );
}

/**
 * A relationship-id attribute (r:id, r:embed) by local name, in the relationships namespace of
 * either Transitional or Strict OOXML (an element may also carry a plain `id`).
 */
export function relationshipId(node: Element, localName: string): string | undefined {
  for (const attr of Array.from(node.attributes)) {
    if (attr.localName === localName && attr.namespaceURI?.endsWith('/relationships')) return attr.value;
  }
  return undefined;
}

export interface Relationship {
  type: string;
  /** The target part's name in the archive (resolved against the source part's folder). */
  target: string;
  external: boolean;
}

/** A part's relationships (its `_rels/<name>.rels`), by id. */
export function relationships(archive: Archive, part: string): Map<string, Relationship> {
  const dir = posix.dirname(part);
  const relsName = posix.join(dir, '_rels', `${posix.basename(part)}.rels`);
  const result = new Map<string, Relationship>();
  if (archive.text(relsName) === undefined) return result;
  for (const rel of elements(readXml(archive, relsName), 'Relationship')) {
    const target = rel.getAttribute('Target') ?? '';
    const external = rel.getAttribute('TargetMode') === 'External';
    result.set(rel.getAttribute('Id') ?? '', {
      type: (rel.getAttribute('Type') ?? '').split('/').pop() ?? '',
      target: external ? target : target.startsWith('/') ? target.slice(1) : posix.normalize(posix.join(dir, target)),
      external,
    });
  }
  return result;
}

/** The text of a DrawingML or SpreadsheetML run container: its `t` elements, in order. */
export function textOf(node: Element, runLocalName = 't'): string {
  return elements(node, runLocalName)
    .map((t) => t.textContent ?? '')
    .join('');
}
