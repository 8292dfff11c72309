import { elements, readXml } from './office-xml.js';
import type { Archive } from './zip-archive.js';

/** The core properties every Office file may carry (docProps/core.xml): title, author, dates. */
export interface OfficeProperties {
  title?: string;
  author?: string;
  publishedAt?: string;
  language?: string;
  metadata: Record<string, string>;
}

export function officeProperties(archive: Archive): OfficeProperties {
  if (archive.text('docProps/core.xml') === undefined) return { metadata: {} };
  const xml = readXml(archive, 'docProps/core.xml');
  const value = (name: string) => elements(xml, name)[0]?.textContent?.trim() || undefined;
  const date = (name: string) => {
    const raw = value(name);
    const time = raw ? Date.parse(raw) : NaN;
    return Number.isNaN(time) ? raw : new Date(time).toISOString();
  };
  const fields = {
    title: value('title'),
    author: value('creator'),
    subject: value('subject'),
    keywords: value('keywords'),
    description: value('description'),
    lastModifiedBy: value('lastModifiedBy'),
    created: date('created'),
    modified: date('modified'),
    language: value('language'),
  };
  const metadata: Record<string, string> = {};
  for (const [key, field] of Object.entries(fields)) if (field) metadata[key] = field;
  return {
    ...(fields.title ? { title: fields.title } : {}),
    ...(fields.author ? { author: fields.author } : {}),
    ...(fields.created ? { publishedAt: fields.created } : {}),
    ...(fields.language ? { language: fields.language } : {}),
    metadata,
  };
}
