import { expect } from '@jest/globals';
import { parseDocument } from 'htmlparser2';

interface ParsedElement {
  name: string;
  attribs: Record<string, string>;
}
interface ParsedNode {
  attribs?: Record<string, string>;
  name?: string;
  children?: ParsedNode[];
}

/** Every element of an HTML fragment, as a parser reads the markup. */
export function elementsOf(html: string): ParsedElement[] {
  const found: ParsedElement[] = [];
  const walk = (nodes: readonly ParsedNode[]) => {
    for (const node of nodes) {
      if (node.attribs && node.name) found.push({ name: node.name, attribs: node.attribs });
      walk(node.children ?? []);
    }
  };
  walk(parseDocument(html).children as ParsedNode[]);
  return found;
}

/** The elements a view may contain: text structure and links, nothing that runs or loads. */
const VIEW_ELEMENTS = new Set(
  'section header h2 h3 p span strong q ol ul li a details summary pre progress time'.split(' '),
);

/** Asserts a rendered view holds only its own elements, no event handler, and no link but a web or same-origin one. */
export function expectInert(html: string): void {
  for (const element of elementsOf(html)) {
    expect(VIEW_ELEMENTS).toContain(element.name);
    for (const [name, value] of Object.entries(element.attribs)) {
      expect(name).not.toMatch(/^on/i);
      expect(name).not.toBe('style');
      if (name === 'href') expect(value).toMatch(/^(https?:\/\/|\/(?!\/))/);
    }
  }
}
