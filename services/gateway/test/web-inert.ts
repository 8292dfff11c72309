import { expect } from '@jest/globals';
import { parseDocument } from 'htmlparser2';

interface ParsedNode {
  attribs?: Record<string, string>;
  name?: string;
  children?: ParsedNode[];
}

/** Every element of a page, as a browser's parser reads the markup. */
function elementsOf(html: string): { name: string; attribs: Record<string, string> }[] {
  const found: { name: string; attribs: Record<string, string> }[] = [];
  const walk = (nodes: readonly ParsedNode[]) => {
    for (const node of nodes) {
      if (node.attribs && node.name) found.push({ name: node.name, attribs: node.attribs });
      walk(node.children ?? []);
    }
  };
  walk(parseDocument(html).children as ParsedNode[]);
  return found;
}

/**
 * Asserts an app page runs and loads nothing but its own: scripts only the app's modules from
 * /app/assets, no frame, object, embed, image from elsewhere, no event handler or style
 * attribute, every link and form to a web or same-origin address.
 */
export function expectInertPage(html: string): void {
  for (const { name, attribs } of elementsOf(html)) {
    expect(['iframe', 'object', 'embed', 'frame', 'base', 'meta[http-equiv]']).not.toContain(name);
    if (name === 'script') expect(attribs.src).toMatch(/^\/app\/assets\/[\w.-]+\.js$/);
    if (name === 'img') expect(attribs.src ?? '').toMatch(/^(\/(?!\/)|data:)/);
    if (name === 'link') expect(attribs.href).toMatch(/^\/app\/assets\//);
    for (const [attribute, value] of Object.entries(attribs)) {
      expect(attribute).not.toMatch(/^on/i);
      expect(attribute).not.toBe('style');
      if (attribute === 'href' || attribute === 'action' || attribute === 'src')
        expect(value).toMatch(/^(https?:\/\/|mailto:|\/(?!\/)|#)/);
    }
  }
}
