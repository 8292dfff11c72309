import { toolNames } from '@quarry/contracts';
import type { FastifyInstance } from 'fastify';
import { escapeHtml } from '../../http/html-document.js';
import { UNAVAILABLE } from '../shell/error-pages.js';
import type { WebShell } from '../shell/web-shell.js';
import { type DocumentRead, documentFact, documentPager, pageAsked } from './document-view.js';
import { renderMarkdown } from './markdown.js';
import { hidden, when, words } from './page-parts.js';
import { callTool, isId, isMissing, isUnavailable, readInAnyOrg } from './tool-call.js';

interface Artifact extends DocumentRead {
  id: string;
  artifactType?: string;
  title: string;
  content?: unknown;
  contentOmitted: boolean;
  contentText?: string;
  page?: { totalBytes: number; offset: number; returnedBytes: number; nextCursor?: string };
  tags: string[];
  confidence?: number;
  planId?: string;
  stepId?: string;
  source?: string;
  createdAt?: string;
  instructionFlags?: { kind: string; excerpt: string }[];
}

/** What each kind of instruction flag says to a reader. */
const FLAG_KINDS: Record<string, string> = {
  override: 'an instruction to a model to ignore its context or take a new role',
  tool_call: 'text dressed as a tool call',
  hidden_text: 'text the page hid from readers',
  invisible_characters: 'invisible characters',
  exfiltration_link: 'a link that would send data away',
};

/**
 * The warning of an artifact with instruction flags (docs/adr/0062-instruction-flags.md): which
 * passages read as instructions to an AI model, so a person knows what a model was warned of.
 */
function flagsWarning(flags: Artifact['instructionFlags']): string {
  if (!flags?.length) return '';
  const items = flags
    .map((f) => `<li>${escapeHtml(FLAG_KINDS[f.kind] ?? f.kind)}: <q>${escapeHtml(f.excerpt)}</q></li>`)
    .join('');
  return `<section class="error" role="note" aria-labelledby="flags-heading"><h2 id="flags-heading">Text aimed at AI models</h2>
<p>Parts of this text read as instructions to an AI model. Quarry marks them so that models treat them as data, not orders.</p><ul>${items}</ul></section>`;
}

/** Tags as the form takes them: comma-separated. */
const tagList = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((tag) => tag.trim())
    .filter(Boolean)
    .slice(0, 20);

/**
 * GET /app/artifacts/:id — an artifact's page (its permalink): what toolNames.getArtifact reads, its text
 * rendered from markdown without raw HTML (renderMarkdown), its content object as JSON text, a
 * page at a time for long text; its tags, changed with POST /app/artifacts/:id/tags
 * (toolNames.updateArtifactTags). A source document's page N (`?page=N`, where a search hit on it
 * links) shows that page's text with its number, figures and tables. Another org's artifact is
 * the same 404 as a missing one, and so is a page the document does not have.
 */
export function registerArtifactPage(scope: FastifyInstance, shell: WebShell): void {
  scope.get<{ Params: { id: string }; Querystring: { cursor?: string; page?: string } }>(
    '/artifacts/:id',
    async (request, reply) => {
      const { id } = request.params;
      if (!isId(id)) return shell.notFound(request, reply);
      const cursor = typeof request.query.cursor === 'string' ? request.query.cursor : undefined;
      const page = pageAsked(request.query.page);
      const { answer } = await readInAnyOrg<Artifact>(shell, request, toolNames.getArtifact, {
        id,
        ...(cursor ? { cursor } : {}),
        ...(page ? { pages: String(page) } : {}),
      });
      if (!answer.ok)
        return isMissing(answer) || answer.code === 'PAGES_OUT_OF_RANGE'
          ? shell.notFound(request, reply)
          : shell.message(request, reply, 503, UNAVAILABLE.title, UNAVAILABLE.message);
      return shell.page(request, reply, 200, {
        title: page ? `${answer.value.title}, page ${page}` : answer.value.title,
        body: artifactBody(answer.value, shell.viewer(request).csrf, page),
      });
    },
  );

  scope.post<{ Params: { id: string } }>('/artifacts/:id/tags', async (request, reply) => {
    const { id } = request.params;
    if (!isId(id)) return shell.notFound(request, reply);
    const form = (request.body ?? {}) as Record<string, string | undefined>;
    const found = await readInAnyOrg<Artifact>(shell, request, toolNames.getArtifact, { id, maxBytes: 4096 });
    if (!found.answer.ok) return isMissing(found.answer) ? shell.notFound(request, reply) : unavailable();
    const answer = await callTool(
      shell,
      request,
      toolNames.updateArtifactTags,
      { id, add: tagList(form.add), remove: tagList(form.remove) },
      found.principal,
    );
    if (answer.ok) return reply.redirect(`/app/artifacts/${id}`, 303);
    if (isUnavailable(answer)) return unavailable();
    return shell.message(request, reply, 400, 'Tags not changed', answer.message);

    function unavailable() {
      return shell.message(request, reply, 503, UNAVAILABLE.title, UNAVAILABLE.message);
    }
  });
}

function artifactBody(artifact: Artifact, csrf: string, pageNumber: number | undefined): string {
  const documentFacts = documentFact(artifact);
  const facts: [string, string][] = [
    ['Kind', escapeHtml(words(artifact.artifactType))],
    ...(documentFacts ? [documentFacts] : []),
    ...(artifact.confidence !== undefined ? [['Confidence', artifact.confidence.toFixed(2)] as [string, string]] : []),
    ...(artifact.planId
      ? [['Plan', `<a href="/app/plans/${escapeHtml(artifact.planId)}">open the plan</a>`] as [string, string]]
      : []),
    ...(artifact.source ? [['Stored by', escapeHtml(artifact.source)] as [string, string]] : []),
    ...(artifact.createdAt ? [['Stored', when(artifact.createdAt)] as [string, string]] : []),
    [
      'Tags',
      artifact.tags.length
        ? artifact.tags.map((tag) => `<span class="badge">${escapeHtml(tag)}</span>`).join(' ')
        : 'none',
    ],
  ];
  const page = artifact.page;
  const within = pageNumber ? `&amp;page=${pageNumber}` : '';
  const next = page?.nextCursor
    ? `<nav class="pager" aria-label="Pages"><a rel="next" href="/app/artifacts/${escapeHtml(artifact.id)}?cursor=${escapeHtml(encodeURIComponent(page.nextCursor))}${within}">Next page of the text</a></nav>`
    : '';
  const where =
    page && (page.offset > 0 || page.nextCursor)
      ? `<p class="muted">Bytes ${page.offset}–${page.offset + page.returnedBytes} of ${page.totalBytes}.</p>`
      : '';
  const text = artifact.contentText
    ? `<section aria-labelledby="text-heading"><h2 id="text-heading">Text</h2>${documentPager(artifact.id, artifact, pageNumber)}${where}<div class="rendered">${renderMarkdown(artifact.contentText)}</div>${next}</section>`
    : '';
  const content =
    artifact.content !== undefined && Object.keys(artifact.content as object).length > 0
      ? `<details><summary>Content object</summary><pre>${escapeHtml(JSON.stringify(artifact.content, null, 2))}</pre></details>`
      : artifact.contentOmitted
        ? '<p class="muted">The content object is too large to show here.</p>'
        : '';
  return `<h1>${escapeHtml(artifact.title)}</h1>
<dl>${facts.map(([term, value]) => `<dt>${term}</dt><dd>${value}</dd>`).join('')}</dl>
${flagsWarning(artifact.instructionFlags)}${text}${content}
<section aria-labelledby="tags-heading"><h2 id="tags-heading">Change tags</h2>
<form method="post" action="/app/artifacts/${escapeHtml(artifact.id)}/tags">${hidden('csrf', csrf)}
<label for="tags-add">Add (comma-separated)</label><input id="tags-add" name="add" type="text">
<label for="tags-remove">Remove (comma-separated)</label><input id="tags-remove" name="remove" type="text">
<button type="submit" class="secondary">Save tags</button></form></section>`;
}
