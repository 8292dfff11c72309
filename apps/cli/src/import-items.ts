import { createHash } from 'node:crypto';
import { createReadStream, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, extname, join, sep } from 'node:path';
import { createInterface } from 'node:readline';
import { convert as htmlToText } from 'html-to-text';
import { z } from '@quarry/config';

// What `quarry import` reads: a directory of text documents or a JSONL file, turned into
// store_research requests, one per document or line, each with a key that says whether it was
// imported before; PDFs and Office files of a directory become source documents, sent as they are
// (the server converts them). Reading is lazy (a large library is never held in memory at once).

/** The artifact types store_research accepts. */
export const ARTIFACT_TYPES = ['analysis', 'synthesis', 'comparison', 'summary', 'source_list', 'finding'] as const;
export type ArtifactType = (typeof ARTIFACT_TYPES)[number];

/** One store_research call's arguments. */
export interface StoreRequest {
  artifactType: ArtifactType;
  title: string;
  content: Record<string, unknown>;
  contentText: string;
  tags: string[];
  planId?: string;
  /** Set when sent (import.ts), from the item's key: a retried call stores nothing twice. */
  idempotencyKey?: string;
}

/** A file the server converts and keeps as a source document (import_document, by upload). */
export interface DocumentUpload {
  path: string;
  fileName: string;
  mediaType: string;
  planId?: string;
}

export type ImportEntry =
  | { kind: 'item'; locator: string; key: string; request: StoreRequest }
  | { kind: 'document'; locator: string; key: string; upload: DocumentUpload }
  /** A document or line that cannot be imported (said why, never sent). */
  | { kind: 'problem'; locator: string; reason: string };

export interface ImportDefaults {
  artifactType: ArtifactType;
  tags: readonly string[];
  planId?: string;
}

const FORMATS: Record<string, 'markdown' | 'text' | 'html'> = {
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.txt': 'text',
  '.text': 'text',
  '.html': 'html',
  '.htm': 'html',
};
/** Files sent whole, as source documents, with their media types (the server sniffs the bytes anyway). */
const DOCUMENT_FORMATS: Record<string, string> = {
  '.pdf': 'application/pdf',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.pptx': 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};
/** HTML as plain text: headings keep their case, lines are not wrapped. */
const HTML_TEXT = {
  wordwrap: false as const,
  selectors: ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
};
/** Longest title store_research takes. */
const MAX_TITLE = 500;

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

function clip(title: string): string {
  const line = title.replace(/\s+/g, ' ').trim();
  return line.length <= MAX_TITLE ? line : `${line.slice(0, MAX_TITLE - 1)}…`;
}

function mergeTags(...lists: readonly (readonly string[] | undefined)[]): string[] {
  return [
    ...new Set(
      lists
        .flatMap((l) => l ?? [])
        .map((t) => t.trim())
        .filter(Boolean),
    ),
  ];
}

/** A document's title: its first Markdown heading or HTML title, else the file name without extension. */
function titleOf(format: 'markdown' | 'text' | 'html', raw: string, fileName: string): string {
  if (format === 'markdown') {
    const heading = /^#{1,6}[ \t]+(.+?)[ \t#]*$/m.exec(raw)?.[1];
    if (heading?.trim()) return clip(heading);
  }
  if (format === 'html') {
    const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(raw)?.[1] ?? /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(raw)?.[1];
    const text = title && htmlToText(title, HTML_TEXT);
    if (text?.trim()) return clip(text);
  }
  return clip(fileName.slice(0, fileName.length - extname(fileName).length) || fileName);
}

/** Every file under `dir` (hidden files and directories left out), in a stable order. */
export function listFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[])
    .filter((rel) => !rel.split(sep).some((part) => part.startsWith('.')))
    .filter((rel) => statSync(join(dir, rel)).isFile())
    .sort();
}

/** The SHA-256 of a file, read as a stream. */
async function fileDigest(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * A directory of .md/.markdown/.txt/.text/.html/.htm documents (stored as their text) and
 * .pdf/.docx/.pptx/.xlsx files (sent whole as source documents); anything else is a problem entry.
 */
export async function* directoryEntries(dir: string, defaults: ImportDefaults): AsyncGenerator<ImportEntry> {
  for (const rel of listFiles(dir)) {
    const locator = rel.split(sep).join('/');
    const extension = extname(rel).toLowerCase();
    const mediaType = DOCUMENT_FORMATS[extension];
    if (mediaType) {
      let digest: string;
      try {
        digest = await fileDigest(join(dir, rel));
      } catch (error) {
        yield { kind: 'problem', locator, reason: `cannot read it (${(error as Error).message})` };
        continue;
      }
      yield {
        kind: 'document',
        locator,
        // The bytes alone: the server keeps one document per file content, whatever its name.
        key: sha256(`document\0${digest}`),
        upload: {
          path: join(dir, rel),
          fileName: basename(rel),
          mediaType,
          ...(defaults.planId ? { planId: defaults.planId } : {}),
        },
      };
      continue;
    }
    const format = FORMATS[extension];
    if (!format) {
      const known = [...Object.keys(FORMATS), ...Object.keys(DOCUMENT_FORMATS)].join(', ');
      yield { kind: 'problem', locator, reason: `unsupported file type (only ${known})` };
      continue;
    }
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(dir, rel));
    } catch (error) {
      yield { kind: 'problem', locator, reason: `cannot read it (${(error as Error).message})` };
      continue;
    }
    const raw = bytes.toString('utf8');
    if (raw.includes('\u0000')) {
      yield { kind: 'problem', locator, reason: 'not a text file (it holds NUL bytes)' };
      continue;
    }
    const text = format === 'html' ? htmlToText(raw, HTML_TEXT) : raw;
    if (!text.trim()) {
      yield { kind: 'problem', locator, reason: 'no text' };
      continue;
    }
    yield {
      kind: 'item',
      locator,
      // The path and the exact bytes: an edited document is a new item, a renamed one too.
      key: sha256(`file\0${locator}\0${sha256(bytes)}`),
      request: {
        artifactType: defaults.artifactType,
        title: titleOf(format, raw, basename(rel)),
        content: { importedFrom: locator, format },
        contentText: text,
        tags: mergeTags(defaults.tags),
        ...(defaults.planId ? { planId: defaults.planId } : {}),
      },
    };
  }
}

const JsonlLine = z
  .object({
    title: z.string().trim().min(1),
    content: z.string().refine((s) => s.trim().length > 0, 'must not be blank'),
    url: z.url().optional(),
    tags: z.array(z.string()).optional(),
    artifactType: z.enum(ARTIFACT_TYPES).optional(),
    planId: z.string().optional(),
  })
  .strict();

/** The non-blank lines of a JSONL file (for the progress total) without holding the file in memory. */
export async function countJsonlLines(file: string): Promise<number> {
  let n = 0;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity }))
    if (line.trim()) n++;
  return n;
}

/** A JSONL file of {title, content, url?, tags?, artifactType?, planId?}, one document per line. */
export async function* jsonlEntries(file: string, defaults: ImportDefaults): AsyncGenerator<ImportEntry> {
  let lineNo = 0;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    lineNo++;
    if (!line.trim()) continue;
    const locator = `line ${lineNo}`;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      yield { kind: 'problem', locator, reason: 'not valid JSON' };
      continue;
    }
    const parsed = JsonlLine.safeParse(json);
    if (!parsed.success) {
      const reason = parsed.error.issues
        .map((i) => `${i.path.length ? i.path.join('.') : 'line'}: ${i.message}`)
        .join('; ');
      yield { kind: 'problem', locator, reason };
      continue;
    }
    const { title, content, url, tags, artifactType, planId } = parsed.data;
    const request: StoreRequest = {
      artifactType: artifactType ?? defaults.artifactType,
      title: clip(title),
      content: url ? { url } : {},
      contentText: content,
      tags: mergeTags(defaults.tags, tags),
      ...((planId ?? defaults.planId) ? { planId: planId ?? defaults.planId } : {}),
    };
    // The document itself, not its line number: a line inserted above does not re-import the rest.
    yield { kind: 'item', locator, key: sha256(`jsonl\0${JSON.stringify(request)}`), request };
  }
}
