import { gfm } from '@joplin/turndown-plugin-gfm';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { convertText } from '../core/text-document.js';
import type { ConvertedDocument, DocumentTable } from '../document.js';

// Never part of the text: code, styling, embedded documents and forms' machinery.
const NEVER =
  'script, style, noscript, template, iframe, frame, object, embed, applet, canvas, svg, link, meta[http-equiv]';

type Doc = ReturnType<typeof parseHTML>['document'];
type El = ReturnType<Doc['querySelector']> & {};

const attr = (document: Doc, selector: string, name: string) =>
  document.querySelector(selector)?.getAttribute(name)?.trim() || undefined;

function absoluteUrl(value: string | undefined, base: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    const url = base ? new URL(value, base) : new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function isoDate(value: string | undefined | null): string | undefined {
  if (!value) return undefined;
  const time = Date.parse(value);
  return Number.isNaN(time) ? value.trim() : new Date(time).toISOString();
}

/** What the page says about itself, read before Readability rewrites the document. */
function pageMetadata(document: Doc) {
  const base = attr(document, 'base[href]', 'href');
  const canonical =
    absoluteUrl(attr(document, 'link[rel~="canonical" i]', 'href'), base) ??
    absoluteUrl(attr(document, 'meta[property="og:url"]', 'content'), base);
  return {
    canonical,
    author:
      attr(document, 'meta[name="author" i]', 'content') ??
      attr(document, 'meta[name="dc.creator" i]', 'content') ??
      attr(document, 'meta[property="article:author"]', 'content'),
    date:
      attr(document, 'meta[property="article:published_time"]', 'content') ??
      attr(document, 'meta[name="date" i]', 'content') ??
      attr(document, 'meta[name="dc.date" i]', 'content') ??
      attr(document, 'time[datetime]', 'datetime'),
    language: document.documentElement?.getAttribute('lang')?.trim() || undefined,
    title: document.querySelector('title')?.textContent?.trim() || undefined,
    siteName: attr(document, 'meta[property="og:site_name"]', 'content'),
    description:
      attr(document, 'meta[name="description" i]', 'content') ??
      attr(document, 'meta[property="og:description"]', 'content'),
  };
}

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

/** The article's tables as rows of cell text, each placed in the section its Markdown lands in. */
function articleTables(
  content: string,
  markdown: string,
  turndown: TurndownService,
  sectionAt: (offset: number) => number,
): DocumentTable[] {
  const { document } = parseHTML(`<!doctype html><html><body>${content}</body></html>`);
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
 * A web page's main content (Mozilla Readability, the Firefox Reader View algorithm, on a
 * linkedom DOM) as Markdown (turndown, GitHub-flavoured tables), with the page's title, author,
 * date, language and canonical URL. Scripts, styles and embedded frames are removed first.
 */
export function convertHtml(html: string, warnings: string[]): ConvertedDocument {
  const { document } = parseHTML(html);
  const meta = pageMetadata(document);
  for (const element of [...document.querySelectorAll(NEVER)]) element.remove();
  const bodyHtml = document.body?.innerHTML ?? '';
  const article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0]).parse();
  if (!article?.content) warnings.push('no main content was found; the whole page was kept');
  const content = article?.content ?? bodyHtml;
  const turndown = markdownConverter();
  const title = article?.title?.trim() || meta.title;
  let markdown = turndown.turndown(content).trim();
  if (title && !markdown.startsWith('#')) markdown = `# ${title}\n\n${markdown}`;
  const converted = convertText(markdown, 'markdown', warnings);
  const sectionAt = (offset: number) =>
    converted.units.find((unit) => offset < unit.end)?.number ?? converted.units.length;
  const tables = articleTables(content, converted.text, turndown, sectionAt);
  const author = article?.byline?.trim() || meta.author;
  const publishedAt = isoDate(article?.publishedTime) ?? isoDate(meta.date);
  const language = article?.lang?.trim() || meta.language;
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries({
    siteName: article?.siteName ?? meta.siteName,
    description: article?.excerpt ?? meta.description,
  })) {
    if (value) metadata[key] = value.trim();
  }
  return {
    ...converted,
    format: 'html',
    mediaType: 'text/html',
    ...(title ? { title } : {}),
    ...(author ? { author } : {}),
    ...(publishedAt ? { publishedAt } : {}),
    ...(meta.canonical ? { canonicalUrl: meta.canonical } : {}),
    ...(language ? { language } : {}),
    metadata,
    tables,
  };
}
