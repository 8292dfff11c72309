import { ProtocolError, ProtocolErrorCode, type Resource } from '@modelcontextprotocol/server';
import { toolNames } from '@quarry/contracts';
import { type CursorCodec, cursorScope } from '@quarry/cursors';
import type { Caller } from '../request-context.js';
import type { Tools } from '../tools/call.js';
import { mayReadKind } from './read.js';
import { readThroughTool, ToolNotAllowed } from './tool-read.js';

/** How many items a resources/list page holds (a plan is one item: its status and its report). */
const PAGE_ITEMS = 20;

/** One listed thing, with the time it is ordered by. */
interface Item {
  at: number;
  resources: Resource[];
}

/** Where a source's next unlisted item is: a page of its tool (its cursor) and a place in it. */
interface Position {
  cursor?: string;
  skip: number;
}

interface Source {
  tool: string;
  page(cursor: string | undefined): Record<string, unknown>;
  items(structured: Record<string, unknown>, caller: Caller): Item[];
}

/**
 * What resources/list lists: the org's plans (each with its report), then its deliverables,
 * merged most recent first. Artifacts and extractions are not listed (they are many per plan and
 * reached through the report's links, tool results' resource links and the templates).
 */
const SOURCES: readonly Source[] = [
  {
    tool: toolNames.listPlans,
    page: (cursor) => ({ limit: PAGE_ITEMS, ...(cursor ? { cursor } : {}) }),
    items: (s, caller) =>
      ((s.plans ?? []) as Record<string, unknown>[]).map((plan) => {
        const id = String(plan.planId);
        const name = String(plan.name ?? id);
        const lastModified = typeof plan.updatedAt === 'string' ? plan.updatedAt : undefined;
        const annotations = lastModified ? { lastModified } : undefined;
        const question = clip(String(plan.researchQuestion ?? ''), 300);
        return {
          at: Date.parse(lastModified ?? '') || 0,
          resources: [
            ...(mayReadKind(caller, 'plan')
              ? [
                  {
                    uri: `quarry://plans/${id}`,
                    name,
                    title: `${name} (status)`,
                    description: `Plan status (${String(plan.status ?? 'unknown')}, ${Math.round(Number(plan.progress ?? 0))}% done): ${question}`,
                    mimeType: 'application/json',
                    ...(annotations ? { annotations } : {}),
                  },
                ]
              : []),
            ...(mayReadKind(caller, 'report')
              ? [
                  {
                    uri: `quarry://plans/${id}/report`,
                    name: `${name} report`,
                    title: `${name} (report)`,
                    description: `Readable account of the plan: ${question}`,
                    mimeType: 'text/markdown',
                    ...(annotations ? { annotations } : {}),
                  },
                ]
              : []),
          ],
        };
      }),
  },
  {
    tool: toolNames.listResearchOutputs,
    page: (cursor) => ({ limit: PAGE_ITEMS, ...(cursor ? { cursor } : {}) }),
    items: (s, caller) =>
      ((s.outputs ?? []) as Record<string, unknown>[]).map((output) => {
        const createdAt = typeof output.createdAt === 'string' ? output.createdAt : undefined;
        return {
          at: Date.parse(createdAt ?? '') || 0,
          resources: [
            ...(mayReadKind(caller, 'output')
              ? [
                  {
                    uri: `quarry://outputs/${String(output.outputId)}`,
                    name: String(output.title ?? output.outputId),
                    description: `Deliverable (${String(output.mediaType ?? '')}) of plan ${String(output.planId ?? '')}`,
                    mimeType: String(output.mimeType ?? 'application/octet-stream'),
                    ...(typeof output.sizeBytes === 'number' ? { size: output.sizeBytes } : {}),
                    ...(createdAt ? { annotations: { lastModified: createdAt } } : {}),
                  },
                ]
              : []),
          ],
        };
      }),
  },
];

/** A list cursor: each source's position, or null once it is exhausted. */
type ListCursor = (Position | null)[];

const invalidCursor = () =>
  new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    'Invalid cursor: pass a nextCursor from resources/list unchanged.',
  );

/** A list cursor's positions, as the codec reads them back; undefined for anything else. */
function readListCursor(parsed: unknown): ListCursor | undefined {
  const valid =
    Array.isArray(parsed) &&
    parsed.length === SOURCES.length &&
    parsed.every(
      (p) =>
        p === null ||
        (typeof p === 'object' &&
          Number.isInteger(p.skip) &&
          p.skip >= 0 &&
          p.skip < PAGE_ITEMS &&
          (p.cursor === undefined || typeof p.cursor === 'string')),
    );
  return valid ? (parsed as ListCursor) : undefined;
}

/**
 * resources/list: a page of the caller's resources, most recent first across sources. Each
 * source is paged by its own tool (and its own sealed cursor); the list cursor holds, per
 * source, the tool cursor of the page its next item is on and how many of that page are listed
 * already. Gathering a page's worth from every source before merging keeps the order exact. A
 * source whose tool the caller may not use is left out, like its resources.
 */
export async function listResources(
  tools: Tools,
  cursors: CursorCodec,
  cursor: string | undefined,
  caller: Caller,
): Promise<{ resources: Resource[]; nextCursor?: string }> {
  // Sealed (ADR 0024) and bound to the caller's org: another org's cursor is refused like a forged one.
  const scope = cursorScope('resources/list', caller.principal.orgId);
  const positions =
    cursor === undefined ? SOURCES.map(() => ({ skip: 0 })) : cursors.open(cursor, scope, readListCursor);
  if (!positions) throw invalidCursor();
  const gathered = await Promise.all(SOURCES.map((source, i) => gather(tools, source, positions[i]!, caller)));
  const candidates = gathered.flatMap((g, source) => g.entries.map((entry, index) => ({ ...entry, source, index })));
  // Most recent first; equal times keep the sources' order and each source's own order.
  candidates.sort((a, b) => b.item.at - a.item.at || a.source - b.source || a.index - b.index);
  const taken = candidates.slice(0, PAGE_ITEMS);
  const next: ListCursor = gathered.map((g, source) => {
    const consumed = taken.filter((c) => c.source === source).length;
    const following = g.entries[consumed];
    if (following) return following.position;
    return g.nextCursor ? { cursor: g.nextCursor, skip: 0 } : null;
  });
  const more = next.some((p) => p !== null);
  return {
    resources: taken.flatMap((c) => c.item.resources),
    ...(more ? { nextCursor: cursors.seal(scope, next) } : {}),
  };
}

/** At least a page's worth of a source's items from `position` on, or all it has left. */
async function gather(
  tools: Tools,
  source: Source,
  position: Position | null,
  caller: Caller,
): Promise<{ entries: { item: Item; position: Position }[]; nextCursor?: string }> {
  const entries: { item: Item; position: Position }[] = [];
  if (position === null) return { entries };
  let pageCursor = position.cursor;
  let skip = position.skip;
  for (;;) {
    let structured: Record<string, unknown>;
    try {
      structured = (await readThroughTool(tools, source.tool, source.page(pageCursor), caller, invalidCursor))
        .structuredContent;
    } catch (error) {
      if (error instanceof ToolNotAllowed) return { entries: [] };
      throw error;
    }
    const items = source.items(structured, caller);
    items.slice(skip).forEach((item, i) => entries.push({ item, position: { cursor: pageCursor, skip: skip + i } }));
    const nextCursor = typeof structured.nextCursor === 'string' ? structured.nextCursor : undefined;
    if (entries.length >= PAGE_ITEMS || !nextCursor) return { entries, nextCursor };
    pageCursor = nextCursor;
    skip = 0;
  }
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);
