import { createRequire } from 'node:module';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { convertText } from '../core/text-document.js';
import type { ConvertedDocument, DocumentTable } from '../document.js';

// The GFM plugin (Markdown tables) ships CommonJS without type declarations.
const require = createRequire(import.meta.url);
const { gfm } = require('@joplin/turndown-plugin-gfm') as { gfm: TurndownService.Plugin };

type Doc = ReturnType<typeof parseHTML>['document'];
type El = ReturnType<Doc['querySelector']> & {};

/** Parse an HTML fragment (or page) with linkedom. */
export function parseFragment(html: string): Doc {
  return parseHTML(`<!doctype html><html><body>${html}</body></html>`).document;
}

/**
 * The `src` given to the `index`-th embedded image in converted HTML: its Markdown link,
 * `(#figure-N)`, is found again in the text to place the figure in its section.
 */
export const figureSrc = (index: number) => `#figure-${index + 1}`;

function markdownConverter(): TurndownService {
  const turndown = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '_',
  });
  turndown.use(gfm);
  turndown.remove(['script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed']);
  // An inline image's data URI would put megabytes of base64 into the text; its alt text is kept.
  turndown.addRule('inlineImages', {
    filter: (node) => node.nodeName === 'IMG' && /^\s*data:/i.test(node.getAttribute('src') ?? ''),
    replacement: (_content, node) => {
      const alt = (node as { getAttribute(name: string): string | null }).getAttribute('alt')?.trim();
      return alt ? `![${alt}]` : '';
    },
  });
  return turndown;
}

const cellText = (cell: El) => (cell.textContent ?? '').replace(/\s+/g, ' ').trim();

/** The fragment's tables as rows of cell text, each placed in the section its Markdown lands in. */
function tablesOf(
  document: Doc,
  markdown: string,
  turndown: TurndownService,
  sectionAt: (offset: number) => number,
): DocumentTable[] {
  let from = 0;
  return [...document.querySelectorAll('table')]
    .filter((table) => !table.parentElement?.closest('table'))
    .map((table) => {
      const rows = [...table.querySelectorAll('tr')]
        .filter((row) => row.closest('table') === table)
        .map((row) => [...row.children].filter((c) => c.tagName === 'TD' || c.tagName === 'TH').map(cellText));
      const caption = table.querySelector('caption')?.textContent?.trim();
      const rendered = turndown.turndown(table.outerHTML).trim().split('\n')[0] ?? '';
      const at = rendered ? markdown.indexOf(rendered, from) : -1;
      if (at >= 0) from = at + rendered.length;
      return { unit: sectionAt(Math.max(at, 0)), ...(caption ? { caption } : {}), rows };
    })
    .filter((table) => table.rows.length > 0);
}

/**
 * An HTML fragment as a Markdown document (turndown, GitHub-flavoured tables), cut into sections
 * at its top headings, titled `title` when it does not open with a heading, with its tables.
 */
export function htmlToMarkdown(html: string, title: string | undefined, warnings: string[]): ConvertedDocument {
  const turndown = markdownConverter();
  const document = parseFragment(html);
  // A table without header cells (Word's usual) would get an empty Markdown header row: its first
  // row is taken as the header, as a reader would.
  for (const table of document.querySelectorAll('table')) {
    if (table.querySelector('th')) continue;
    const first = table.querySelector('tr');
    for (const cell of first ? [...first.children] : []) {
      if (cell.tagName !== 'TD') continue;
      const th = document.createElement('th');
      th.innerHTML = cell.innerHTML;
      cell.replaceWith(th);
    }
  }
  let markdown = turndown.turndown(document.body.innerHTML).trim();
  if (title && !markdown.startsWith('#')) markdown = `# ${title}\n\n${markdown}`;
  const converted = convertText(markdown, 'markdown', warnings);
  const tables = tablesOf(document, converted.text, turndown, (offset) => sectionAt(converted, offset));
  return { ...converted, tables };
}

/** The number of the unit holding character `offset` of the document's text. */
export function sectionAt(document: ConvertedDocument, offset: number): number {
  return document.units.find((unit) => offset < unit.end)?.number ?? document.units.length;
}
