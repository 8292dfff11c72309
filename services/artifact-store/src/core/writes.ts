import { artifactV1 } from '@quarry/contracts';
import type { ContentEventInput } from '@quarry/events';
import { artifactTypes, mediaTypes } from '../enums.js';
import { artifactErrors } from '../errors.js';
import type { NewRow } from '../store/schema.js';
import { isBinary, jsonBody, outputBody, textBody } from './bodies.js';
import { keyColumns } from './idempotency.js';
import { artifactBytes, outputBytes } from './storage-quota.js';
import { artifactText, textOf, titleFrom } from './indexed-text.js';
import { flagsColumn } from './instruction-flags.js';

/**
 * What each client write stores and indexes, decided from the request alone: the row to insert
 * and its content.created event (the handler adds the org and, once inserted, the row's id).
 * Every argument is checked here, before any I/O, so a refused request costs no plan-engine call.
 */

/** A content.created event before its row exists. Blank text: nothing to index, no event. */
export type ContentEvent = Omit<ContentEventInput, 'orgId' | 'sourceId'>;

/** A row to insert and the event that goes with it, in the same transaction. */
interface Write<Row> {
  row: Row;
  event: ContentEvent;
}
type ArtifactWrite = Write<NewRow<'artifact.research_artifacts'>>;

/** An artifact row with what it counts against its org's storage (core/storage-quota.ts). */
function measuredArtifact(row: Omit<ArtifactWrite['row'], 'stored_bytes'>): ArtifactWrite['row'] {
  return { ...row, stored_bytes: artifactBytes(row) };
}

const needsPlan = () =>
  artifactErrors.INVALID_ARGUMENT({ field: 'stepId', rule: 'needs planId (the plan the step belongs to)' });

/** StoreResearch: a client's artifact, indexed by its own text or else the text values of its content. */
export function researchArtifact(req: artifactV1.StoreResearchRequest): ArtifactWrite {
  const artifactType = artifactTypes.required(req.artifactType, 'artifactType');
  if (!req.content) throw artifactErrors.INVALID_ARGUMENT({ field: 'content', rule: 'is required (a JSON object)' });
  const content = jsonBody('content', req.content);
  const contentText = req.contentText === undefined ? undefined : textBody('contentText', req.contentText);
  if (req.stepId && !req.planId) throw needsPlan();
  return {
    row: measuredArtifact({
      plan_id: req.planId ?? null,
      step_id: req.stepId ?? null,
      artifact_type: artifactType,
      source: 'client',
      title: req.title,
      content,
      content_text: contentText ?? null,
      confidence: req.confidence ?? null,
      tags: req.tags,
      instruction_flags: flagsColumn({ text: artifactText(contentText ?? null, req.content), title: req.title }),
      ...keyColumns('store_research', req.idempotencyKey, artifactV1.StoreResearchRequest.toJSON(req)),
    }),
    event: {
      sourceTable: 'research_artifact',
      planId: req.planId,
      stepId: req.stepId,
      artifactType,
      title: req.title,
      text: contentText ?? textOf(req.content),
      tags: req.tags.length ? req.tags : undefined,
    },
  };
}

/** StoreResearchOutput: binary documents are indexed by their summary only; text outputs by summary and text. */
export function researchOutput(req: artifactV1.StoreResearchOutputRequest): Write<NewRow<'artifact.research_outputs'>> {
  const mediaType = mediaTypes.required(req.mediaType, 'mediaType');
  const body = outputBody(mediaType, req.content);
  const row = {
    plan_id: req.planId,
    media_type: mediaType,
    title: req.title,
    content_text: 'text' in body ? body.text : null,
    content_bytes: 'bytes' in body ? body.bytes : null,
    content_size: body.size,
    content_summary: req.contentSummary ?? null,
    formatting_notes_used: req.formattingNotesUsed ?? null,
    session_id: req.sessionId ?? null,
    ...keyColumns('store_research_output', req.idempotencyKey, artifactV1.StoreResearchOutputRequest.toJSON(req)),
  };
  return {
    row: { ...row, stored_bytes: outputBytes(row) },
    event: {
      sourceTable: 'research_output',
      planId: req.planId,
      title: req.title,
      text: isBinary(mediaType)
        ? (req.contentSummary ?? '')
        : [req.contentSummary, req.content].filter(Boolean).join('\n\n'),
    },
  };
}

/** SubmitSubagentReport: stored as an `analysis` artifact titled by the description's first line. */
export function subagentReport(req: artifactV1.SubmitSubagentReportRequest): ArtifactWrite {
  if (!req.report) throw artifactErrors.INVALID_ARGUMENT({ field: 'report', rule: 'is required (a JSON object)' });
  const report = jsonBody('report', req.report);
  const title = titleFrom(req.description);
  const text = [req.description, textOf(req.report)].filter(Boolean).join('\n\n');
  return {
    row: measuredArtifact({
      plan_id: req.planId,
      step_id: req.stepId,
      artifact_type: 'analysis',
      source: 'subagent',
      title,
      content: report,
      content_text: text,
      tags: [],
      instruction_flags: flagsColumn({ text, title }),
      session_id: req.sessionId ?? null,
      ...keyColumns('submit_subagent_report', req.idempotencyKey, artifactV1.SubmitSubagentReportRequest.toJSON(req)),
    }),
    event: {
      sourceTable: 'research_artifact',
      planId: req.planId,
      stepId: req.stepId,
      artifactType: 'analysis',
      title,
      text,
    },
  };
}
