import type { ReadResourceResult } from '@modelcontextprotocol/server';
import { sourceUrl, toolNames } from '@quarry/contracts';
import type { Permalinks } from '../../web/permalinks.js';
import { type Caller, mayUse } from '../request-context.js';
import type { Tools } from '../tools/call.js';
import { type ReportContext, type ReportOutput, renderPlanReport } from './plan-report.js';
import { readThroughTool, resourceNotFound, ToolNotAllowed } from './tool-read.js';
import { parseResourceUri, type ResourceKind, type ResourceRef } from './uris.js';

type Contents = ReadResourceResult['contents'];

/**
 * The tool each resource is read through: a resource is readable (and listed) only when the
 * caller's allowlist allows its tool. The report is read through the research-context tool without
 * a sessionId, which writes nothing.
 */
const BACKING_TOOL = {
  plan: toolNames.getPlanStatus,
  report: toolNames.getResearchContext,
  artifact: toolNames.getArtifact,
  output: toolNames.getResearchOutput,
  extraction: toolNames.getExtraction,
  job: toolNames.getExtractionJob,
  entity: toolNames.getEntityGraph,
} as const satisfies Record<ResourceKind, string>;

/** Whether the caller's allowlist lets it read resources of this kind. */
export function mayReadKind(caller: Caller, kind: ResourceKind): boolean {
  return mayUse(caller.principal, BACKING_TOOL[kind]);
}

/**
 * Deliverables are documents a client opens: read whole, up to the store's own limit for a text
 * deliverable, so one resource read is the whole document. Artifacts and extractions are read at
 * the default budget like their tools (ADR 0024); what does not fit says how to read on.
 */
const WHOLE_DOCUMENT_BYTES = 1_048_576;
const DELIVERABLES_IN_REPORT = 100;

/**
 * resources/read: what a URI names (or the permalink of a stored item a result linked to), read
 * with the caller's principal; a miss is ResourceNotFound.
 */
export async function readResource(
  tools: Tools,
  uri: string,
  caller: Caller,
  permalinks?: Permalinks,
): Promise<{ ref: ResourceRef; contents: Contents }> {
  const ref = parseResourceUri(uri) ?? parseResourceUri(permalinks?.addressOf(uri) ?? '');
  if (!ref) throw resourceNotFound(uri);
  const notFound = () => resourceNotFound(uri);
  const read = (tool: string, args: Record<string, unknown>) => readThroughTool(tools, tool, args, caller, notFound);
  try {
    switch (ref.kind) {
      case 'plan': {
        const { structuredContent } = await read(BACKING_TOOL.plan, { planId: ref.id });
        return { ref, contents: [json(uri, structuredContent)] };
      }
      case 'artifact': {
        const { structuredContent } = await read(BACKING_TOOL.artifact, { id: ref.id });
        return { ref, contents: [json(uri, withReadOn(structuredContent, BACKING_TOOL.artifact, { id: ref.id }))] };
      }
      case 'extraction': {
        const { structuredContent } = await read(BACKING_TOOL.extraction, { id: ref.id });
        return { ref, contents: [json(uri, withReadOn(structuredContent, BACKING_TOOL.extraction, { id: ref.id }))] };
      }
      case 'entity': {
        const { structuredContent } = await read(BACKING_TOOL.entity, { entityId: ref.id });
        return { ref, contents: [json(uri, withMoreNeighbours(structuredContent, ref.id))] };
      }
      case 'job': {
        const { structuredContent } = await read(BACKING_TOOL.job, { jobId: ref.id });
        return { ref, contents: [json(uri, structuredContent)] };
      }
      case 'output': {
        const result = await read(BACKING_TOOL.output, { outputId: ref.id, maxBytes: WHOLE_DOCUMENT_BYTES });
        const embedded = result.content.find((c) => c.type === 'resource');
        if (embedded && 'blob' in embedded.resource)
          return { ref, contents: [{ uri, mimeType: embedded.resource.mimeType, blob: embedded.resource.blob }] };
        const output = result.structuredContent;
        return {
          ref,
          contents: [{ uri, mimeType: String(output.mimeType ?? 'text/plain'), text: String(output.content ?? '') }],
        };
      }
      case 'report': {
        const context = await read(BACKING_TOOL.report, { planId: ref.id });
        let outputs: ReportOutput[] = [];
        let gap: string | undefined;
        try {
          const listed = await read(toolNames.listResearchOutputs, { planId: ref.id, limit: DELIVERABLES_IN_REPORT });
          outputs = (listed.structuredContent.outputs ?? []) as ReportOutput[];
        } catch (error) {
          if (!(error instanceof ToolNotAllowed)) throw error;
          gap = `Not shown: this token may not call ${toolNames.listResearchOutputs}.`;
        }
        const report = context.structuredContent as unknown as ReportContext;
        // With a public URL an artifact's link is its permalink, as a deliverable's url already is.
        const artifacts = report.artifacts?.map((a) => ({
          ...a,
          url: a.url ?? permalinks?.of(sourceUrl('research_artifact', a.id)),
        }));
        const markdown = renderPlanReport(
          { ...report, artifacts },
          outputs,
          { deliverables: gap },
          permalinks?.planPage(ref.id),
          (address) => permalinks?.of(address),
        );
        return { ref, contents: [{ uri, mimeType: 'text/markdown', text: markdown }] };
      }
    }
  } catch (error) {
    if (error instanceof ToolNotAllowed) throw notFound();
    throw error;
  }
}

function json(uri: string, value: unknown) {
  return { uri, mimeType: 'application/json', text: JSON.stringify(value) };
}

/** An entity with more direct neighbours than one page: the JSON says which call reads on. */
function withMoreNeighbours(value: Record<string, unknown>, entityId: string) {
  if (typeof value.nextCursor !== 'string') return value;
  const tool = BACKING_TOOL.entity;
  return {
    ...value,
    readOn: {
      note: `More neighbours follow: call ${tool} with these arguments for the next page, and again with each nextCursor.`,
      tool,
      arguments: { entityId, cursor: value.nextCursor },
    },
  };
}

/**
 * Long text comes a page at a time, as from the tool: when more follows, the JSON says which
 * call reads the next page (the tool's own sealed cursor), so nothing is silently cut.
 */
function withReadOn(value: Record<string, unknown>, tool: string, args: Record<string, unknown>) {
  const next = (value.page as { nextCursor?: string } | undefined)?.nextCursor;
  if (!next) return value;
  return {
    ...value,
    readOn: {
      note: `The text continues beyond this resource's budget: call ${tool} with these arguments for the next page, and again with each page.nextCursor.`,
      tool,
      arguments: { ...args, cursor: next },
    },
  };
}
