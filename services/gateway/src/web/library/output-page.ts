import { createHash } from 'node:crypto';
import { toolNames } from '@quarry/contracts';
import contentDisposition from 'content-disposition';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal } from '../../identity/schema.js';
import { escapeHtml } from '../../http/html-document.js';
import { UNAVAILABLE } from '../shell/error-pages.js';
import type { WebShell } from '../shell/web-shell.js';
import { renderMarkdown } from './markdown.js';
import { size, when, words } from './page-parts.js';
import { callTool, isId, isMissing, readInAnyOrg } from './tool-call.js';

interface Output {
  outputId: string;
  planId: string;
  mediaType?: string;
  mimeType: string;
  title: string;
  content?: string;
  page?: { totalBytes: number; offset: number; returnedBytes: number; nextCursor?: string };
  sizeBytes: number;
  sha256: string;
  contentSummary?: string;
  createdAt?: string;
}

const EXTENSIONS: Readonly<Record<string, string>> = {
  markdown: '.md',
  html: '.html',
  conversation: '.txt',
  word: '.docx',
  excel: '.xlsx',
  powerpoint: '.pptx',
};

/** The forms stored as documents (bytes), not text. */
const DOCUMENTS = new Set(['word', 'excel', 'powerpoint']);
const isDocument = (output: Pick<Output, 'mediaType'>) => DOCUMENTS.has(output.mediaType ?? '');

/** The most text one read returns (toolNames.getResearchOutput's largest maxBytes). */
const READ_BYTES = 1_048_576;

/**
 * GET /app/outputs/:id — a deliverable's page (its permalink): its facts, its text (markdown and
 * conversations rendered without raw HTML, an HTML deliverable shown as its source, never as a
 * page), and a download. GET /app/outputs/:id/download — the stored bytes as they are: text read
 * page by page with toolNames.getResearchOutput and joined, documents from the embedded resource, checked
 * against the stored SHA-256; sent as an attachment with the stored MIME type and a file name
 * made safe from the title.
 */
export function registerOutputPage(scope: FastifyInstance, shell: WebShell): void {
  scope.get<{ Params: { id: string } }>('/outputs/:id', async (request, reply) => {
    const outputId = request.params.id;
    if (!isId(outputId)) return shell.notFound(request, reply);
    const { answer } = await readInAnyOrg<Output>(shell, request, toolNames.getResearchOutput, { outputId });
    if (!answer.ok)
      return isMissing(answer)
        ? shell.notFound(request, reply)
        : shell.message(request, reply, 503, UNAVAILABLE.title, UNAVAILABLE.message);
    return shell.page(request, reply, 200, { title: answer.value.title, body: outputBody(answer.value) });
  });

  scope.get<{ Params: { id: string } }>('/outputs/:id/download', async (request, reply) => {
    const outputId = request.params.id;
    if (!isId(outputId)) return shell.notFound(request, reply);
    const first = await readInAnyOrg<Output>(shell, request, toolNames.getResearchOutput, {
      outputId,
      maxBytes: READ_BYTES,
    });
    if (!first.answer.ok)
      return isMissing(first.answer)
        ? shell.notFound(request, reply)
        : shell.message(request, reply, 503, UNAVAILABLE.title, UNAVAILABLE.message);
    const output = first.answer.value;
    const bytes = isDocument(output)
      ? embeddedBytes(first.answer.content)
      : await wholeText(shell, request, first.principal, output);
    if (!bytes || createHash('sha256').update(bytes).digest('hex') !== output.sha256.toLowerCase()) {
      request.log.error({ outputId }, 'a deliverable read back did not match its stored SHA-256');
      return shell.message(request, reply, 503, UNAVAILABLE.title, UNAVAILABLE.message);
    }
    return reply
      .code(200)
      .headers({
        'content-type': output.mimeType,
        'content-length': String(bytes.length),
        'content-disposition': contentDisposition(fileName(output), { type: 'attachment' }),
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        // Opened rather than saved, it still could run nothing.
        'content-security-policy': "default-src 'none'; sandbox",
        'referrer-policy': 'no-referrer',
      })
      .send(bytes);
  });
}

/** The document's bytes from the result's embedded resource (base64), or undefined. */
function embeddedBytes(content: readonly unknown[]): Buffer | undefined {
  for (const item of content) {
    const resource = (item as { type?: string; resource?: { blob?: unknown } }).resource;
    if ((item as { type?: string }).type === 'resource' && typeof resource?.blob === 'string')
      return Buffer.from(resource.blob, 'base64');
  }
  return undefined;
}

/** A text deliverable whole: its first page, then each next one, as UTF-8 bytes. */
async function wholeText(
  shell: WebShell,
  request: FastifyRequest,
  principal: Principal,
  first: Output,
): Promise<Buffer | undefined> {
  const parts = [Buffer.from(first.content ?? '', 'utf8')];
  let cursor = first.page?.nextCursor;
  while (cursor) {
    const next = await callTool<Output>(
      shell,
      request,
      toolNames.getResearchOutput,
      { outputId: first.outputId, cursor, maxBytes: READ_BYTES },
      principal,
    );
    if (!next.ok) return undefined;
    parts.push(Buffer.from(next.value.content ?? '', 'utf8'));
    cursor = next.value.page?.nextCursor;
  }
  return Buffer.concat(parts);
}

/**
 * A file name from the stored title: no path separators, control or reserved characters, at most
 * 120 characters, with the extension of its form. content-disposition then quotes it (ASCII
 * fallback and RFC 5987 filename*), so nothing in a title reaches the header raw.
 */
function fileName(output: Pick<Output, 'title' | 'mediaType'>): string {
  const base =
    output.title
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u001f\u007f-\u009f/\\:*?"<>|]+/g, '_')
      .replace(/^[.\s_]+|[.\s]+$/g, '')
      .slice(0, 120) || 'deliverable';
  const extension = EXTENSIONS[output.mediaType ?? ''] ?? '';
  return base.toLowerCase().endsWith(extension) ? base : `${base}${extension}`;
}

function outputBody(output: Output): string {
  const content = output.content ?? '';
  const text = isDocument(output)
    ? '<p>This deliverable is a document: download it to open it.</p>'
    : output.mediaType === 'html'
      ? `<p class="muted">An HTML deliverable is shown as its source; download it to open it.</p><pre>${escapeHtml(content)}</pre>`
      : `<div class="rendered">${renderMarkdown(content)}</div>`;
  const more = output.page?.nextCursor
    ? `<p class="muted">Showing the first ${size(output.page.returnedBytes)} of ${size(output.page.totalBytes)}: download it for the whole text.</p>`
    : '';
  return `<h1>${escapeHtml(output.title)}</h1>
<dl>
<dt>Form</dt><dd>${escapeHtml(words(output.mediaType))} (${escapeHtml(output.mimeType)})</dd>
<dt>Size</dt><dd>${size(output.sizeBytes)}</dd>
<dt>Plan</dt><dd><a href="/app/plans/${escapeHtml(output.planId)}">open the plan</a></dd>
${output.createdAt ? `<dt>Stored</dt><dd>${when(output.createdAt)}</dd>` : ''}
<dt>SHA-256</dt><dd><code>${escapeHtml(output.sha256)}</code></dd>
</dl>
<p><a class="button" href="/app/outputs/${escapeHtml(output.outputId)}/download" download>Download</a></p>
${output.contentSummary ? `<p>${escapeHtml(output.contentSummary)}</p>` : ''}
<section aria-labelledby="content-heading"><h2 id="content-heading">Content</h2>${more}${text}</section>`;
}
