import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import type { ConvertedDocument } from '../document.js';
import { htmlToMarkdown } from './html-markdown.js';

// Never part of the text: code, styling, embedded documents and forms' machinery.
const NEVER =
  'script, style, noscript, template, iframe, frame, object, embed, applet, canvas, svg, link, meta[http-equiv]';

type Doc = ReturnType<typeof parseHTML>['document'];

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
  const title = article?.title?.trim() || meta.title;
  const converted = htmlToMarkdown(content, title, warnings);
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
  };
}
