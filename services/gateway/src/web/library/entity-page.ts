import { toolNames } from '@quarry/contracts';
import type { FastifyInstance } from 'fastify';
import { escapeHtml } from '../../http/html-document.js';
import { UNAVAILABLE } from '../shell/error-pages.js';
import type { WebShell } from '../shell/web-shell.js';
import { words } from './page-parts.js';
import { isMissing, readInAnyOrg } from './tool-call.js';

interface Entity {
  id: string;
  name: string;
  type: string;
  aliases?: string[];
  attributes?: Record<string, string>;
  distance?: number;
}
interface Evidence {
  artifactId: string;
  page?: number;
  start?: number;
  end?: number;
  quote?: string;
}
interface Relation {
  id: string;
  fromId: string;
  toId: string;
  type: string;
  evidence?: Evidence[];
  evidenceCount?: number;
}
interface Graph {
  entities?: Entity[];
  relations?: Relation[];
  nextCursor?: string;
}

/**
 * GET /app/entities/:id — an entity and its direct neighbours: its names and attributes, the
 * entities it is related to (each a link to its own page), and each relation with its evidence
 * (links to the artifacts, the page, the quote). Read with toolNames.getEntityGraph and the person's
 * principal, in the org they work in and then their others; a missing, another org's and a
 * malformed id answer the same 404 page. Every stored value is escaped.
 */
export function registerEntityPage(scope: FastifyInstance, shell: WebShell): void {
  scope.get<{ Params: { id: string }; Querystring: { cursor?: string } }>('/entities/:id', async (request, reply) => {
    const cursor = typeof request.query.cursor === 'string' ? request.query.cursor : undefined;
    const { answer } = await readInAnyOrg<Graph>(shell, request, toolNames.getEntityGraph, {
      entityId: request.params.id,
      ...(cursor ? { cursor } : {}),
    });
    if (!answer.ok)
      return isMissing(answer)
        ? shell.notFound(request, reply)
        : shell.message(request, reply, 503, UNAVAILABLE.title, UNAVAILABLE.message);
    const graph = answer.value;
    const entity = graph.entities?.find((e) => e.id === request.params.id);
    const path = `/app/entities/${encodeURIComponent(request.params.id)}`;
    const next = graph.nextCursor ? `${path}?cursor=${encodeURIComponent(graph.nextCursor)}` : undefined;
    return shell.page(request, reply, 200, {
      title: entity?.name ?? 'Entity',
      body: entityBody(request.params.id, entity, graph, next),
    });
  });
}

const entityLink = (e: Entity | undefined, id: string) =>
  `<a href="/app/entities/${encodeURIComponent(id)}">${escapeHtml(e?.name ?? id)}</a>`;

function evidenceItem(e: Evidence): string {
  const where = [
    e.page !== undefined ? `page ${e.page}` : '',
    e.start !== undefined ? `characters ${e.start}–${e.end ?? ''}` : '',
  ].filter(Boolean);
  return `<li><a href="/app/artifacts/${encodeURIComponent(e.artifactId)}">artifact</a>${where.length ? ` (${escapeHtml(where.join(', '))})` : ''}${e.quote ? `: <q>${escapeHtml(e.quote)}</q>` : ''}</li>`;
}

function entityBody(id: string, entity: Entity | undefined, graph: Graph, next: string | undefined): string {
  const byId = new Map((graph.entities ?? []).map((e) => [e.id, e]));
  const attributes = Object.entries(entity?.attributes ?? {});
  const neighbours = (graph.entities ?? []).filter((e) => e.id !== id);
  const head = entity
    ? `<h1>${escapeHtml(entity.name)}</h1>
<p>${escapeHtml(words(entity.type))}${entity.aliases?.length ? ` · also ${escapeHtml(entity.aliases.join(', '))}` : ''}</p>
${attributes.length ? `<dl>${attributes.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>` : ''}`
    : `<h1>Entity</h1>`;
  const neighbourList = neighbours.length
    ? `<ul>${neighbours.map((e) => `<li>${entityLink(e, e.id)} (${escapeHtml(words(e.type))})</li>`).join('')}</ul>`
    : '<p>No related entities.</p>';
  const relations = (graph.relations ?? [])
    .map(
      (
        r,
      ) => `<li>${entityLink(byId.get(r.fromId), r.fromId)} — ${escapeHtml(words(r.type))} → ${entityLink(byId.get(r.toId), r.toId)}
<ul>${(r.evidence ?? []).map(evidenceItem).join('')}</ul>${(r.evidenceCount ?? 0) > (r.evidence?.length ?? 0) ? `<p>${r.evidenceCount} evidence items in all.</p>` : ''}</li>`,
    )
    .join('');
  return `${head}
<h2>Related entities</h2>
${neighbourList}
<h2>Relations</h2>
${relations ? `<ul>${relations}</ul>` : '<p>No relations on this page.</p>'}${next ? `\n<p><a href="${escapeHtml(next)}" rel="next">More neighbours</a></p>` : ''}`;
}
