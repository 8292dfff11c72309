import { sourceUrl, type SourceTableName, toolNames } from '@quarry/contracts';
import type { FastifyInstance } from 'fastify';
import { escapeHtml } from '../../http/html-document.js';
import { readThroughTool } from '../../mcp/resources/tool-read.js';
import { principalOf } from '../shell/app-user.js';
import { UNAVAILABLE } from '../shell/error-pages.js';
import type { WebShell } from '../shell/web-shell.js';

class NotInOrg extends Error {}

const TABLES: Readonly<Record<string, SourceTableName>> = {
  artifacts: 'research_artifact',
  outputs: 'research_output',
  extractions: 'extraction_result',
};

/** Metadata the page does not show: how the text was paged. */
const PAGING = new Set(['next_cursor', 'offset', 'total_bytes']);

/**
 * GET /app/:kind/:id — a stored item's permalink page, a plain text view of what fetch reads
 * (docs/adr/0042-chatgpt-search-and-fetch.md). Tried in the org the person works in, then in
 * their others, so a link opens whichever of their orgs holds it. A missing item, another
 * organization's and a malformed address answer the same 404 page. Each read is a fetch call with
 * the person's principal (row-level security as for any call), in the tool-call log under the
 * browser session's id.
 */
export function registerItemPages(scope: FastifyInstance, shell: WebShell): void {
  scope.get<{ Params: { kind: string; id: string }; Querystring: { cursor?: string } }>(
    '/:kind/:id',
    async (request, reply) => {
      const table = TABLES[request.params.kind];
      if (!table) return shell.notFound(request, reply);
      const path = `/app/${request.params.kind}/${encodeURIComponent(request.params.id)}`;
      const cursor = typeof request.query.cursor === 'string' ? request.query.cursor : undefined;
      const viewer = shell.viewer(request);
      const orgs = [viewer.org, ...viewer.user.orgs.filter((o) => o.id !== viewer.org.id)];
      for (const org of orgs) {
        try {
          const { structuredContent } = await readThroughTool(
            shell.tools,
            toolNames.fetch,
            { id: sourceUrl(table, request.params.id), ...(cursor ? { cursor } : {}) },
            { principal: principalOf(viewer.user, org), requestId: String(request.id) },
            () => new NotInOrg(),
          );
          const read = structuredContent as { title: string; text: string; metadata: Record<string, string> };
          const next = read.metadata.next_cursor;
          return shell.page(request, reply, 200, {
            title: read.title,
            body: itemBody({ ...read, nextPage: next ? `${path}?cursor=${encodeURIComponent(next)}` : undefined }),
          });
        } catch (error) {
          if (!(error instanceof NotInOrg)) {
            request.log.error({ err: error }, 'the app could not read an item');
            return shell.message(request, reply, 503, UNAVAILABLE.title, UNAVAILABLE.message);
          }
        }
      }
      return shell.notFound(request, reply);
    },
  );
}

/** A stored item as fetch reads it: title, what else is known, its text (this page of it), and a link to the next page. */
function itemBody(item: { title: string; text: string; metadata: Record<string, string>; nextPage?: string }): string {
  const known = Object.entries(item.metadata).filter(([key]) => !PAGING.has(key));
  return `<h1>${escapeHtml(item.title)}</h1>
<dl>${known.map(([key, value]) => `<dt>${escapeHtml(key.replace(/_/g, ' '))}</dt><dd>${escapeHtml(value)}</dd>`).join('')}</dl>
<pre>${escapeHtml(item.text)}</pre>${item.nextPage ? `\n<p><a href="${escapeHtml(item.nextPage)}" rel="next">Next page</a></p>` : ''}`;
}
