import { artifactV1 } from '@quarry/contracts';
import { isUuid, withTenant } from '@quarry/db';
import { appendContentEvent, type ContentEventInput } from '@quarry/events';
import { type CallContext, unary } from '@quarry/grpc';
import type { Kysely, Transaction } from 'kysely';
import type { Logger } from 'pino';
import {
  extractionText,
  extractionTitle,
  isBinary,
  jsonBody,
  outputBody,
  textBody,
  textOf,
  titleFrom,
} from './content.js';
import { artifactTypes, mediaTypes } from './enums.js';
import { artifactErrors } from './errors.js';
import { extractionRow } from './extraction.js';
import type { PlanReferences } from './plans.js';
import type { ArtifactDatabase } from './store/schema.js';

export interface ArtifactServiceDeps {
  db: Kysely<ArtifactDatabase>;
  plans: PlanReferences;
  logger: Logger;
}

type Trx = Transaction<ArtifactDatabase>;
const LIST_LIMIT = 500;

/** A missing, malformed and another org's artifact id are refused alike, so an id reveals nothing. */
const artifactNotFound = (artifactId: string) => artifactErrors.ARTIFACT_NOT_FOUND({ artifactId });

function traceparentOf(ctx: CallContext): string | undefined {
  const value = ctx.metadata.get('traceparent')[0];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The ArtifactService rpcs. Every input is validated and every plan/step reference resolved
 * (one plan-engine call) before the transaction opens; the row and, when it has text, its
 * content.created event are then written in ONE transaction under the caller's tenant, so an
 * event exists exactly when its row does.
 */
export function createArtifactService(deps: ArtifactServiceDeps): artifactV1.ArtifactServiceServer {
  function tenant<T>(ctx: CallContext, fn: (trx: Trx) => Promise<T>): Promise<T> {
    return withTenant(deps.db, { orgId: ctx.identity.orgId }, fn);
  }

  async function emit(trx: Trx, ctx: CallContext, event: Omit<ContentEventInput, 'orgId'>): Promise<void> {
    if (!event.text.trim()) return;
    // The outbox lives in the `events` schema, which this service's database type does not name.
    await appendContentEvent(
      trx as unknown as Transaction<unknown>,
      { ...event, orgId: ctx.identity.orgId },
      { traceparent: traceparentOf(ctx) },
    );
  }

  return {
    storeResearch: unary(
      async (req: artifactV1.StoreResearchRequest, ctx): Promise<artifactV1.StoreResearchResponse> => {
        const artifactType = artifactTypes.required(req.artifactType, 'artifactType');
        if (!req.content)
          throw artifactErrors.INVALID_ARGUMENT({ field: 'content', rule: 'is required (a JSON object)' });
        const content = jsonBody('content', req.content);
        const contentText = req.contentText === undefined ? undefined : textBody('contentText', req.contentText);
        if (req.stepId && !req.planId)
          throw artifactErrors.INVALID_ARGUMENT({
            field: 'stepId',
            rule: 'needs planId (the plan the step belongs to)',
          });
        if (req.planId) await deps.plans.resolve(ctx, req.planId, req.stepId);
        return tenant(ctx, async (trx) => {
          const row = await trx
            .insertInto('artifact.research_artifacts')
            .values({
              org_id: ctx.identity.orgId,
              plan_id: req.planId ?? null,
              step_id: req.stepId ?? null,
              artifact_type: artifactType,
              source: 'client',
              title: req.title,
              content,
              content_text: contentText ?? null,
              confidence: req.confidence ?? null,
              tags: req.tags,
            })
            .returning('id')
            .executeTakeFirstOrThrow();
          await emit(trx, ctx, {
            sourceTable: 'research_artifact',
            sourceId: row.id,
            planId: req.planId,
            stepId: req.stepId,
            artifactType,
            title: req.title,
            text: contentText ?? textOf(req.content),
            tags: req.tags.length ? req.tags : undefined,
          });
          return { id: row.id, artifactType: req.artifactType, title: req.title, stored: true };
        });
      },
    ),

    storeResearchOutput: unary(
      async (req: artifactV1.StoreResearchOutputRequest, ctx): Promise<artifactV1.StoreResearchOutputResponse> => {
        const mediaType = mediaTypes.required(req.mediaType, 'mediaType');
        const body = outputBody(mediaType, req.content);
        await deps.plans.resolve(ctx, req.planId);
        return tenant(ctx, async (trx) => {
          const row = await trx
            .insertInto('artifact.research_outputs')
            .values({
              org_id: ctx.identity.orgId,
              plan_id: req.planId,
              media_type: mediaType,
              title: req.title,
              content_text: 'text' in body ? body.text : null,
              content_bytes: 'bytes' in body ? body.bytes : null,
              content_size: body.size,
              content_summary: req.contentSummary ?? null,
              formatting_notes_used: req.formattingNotesUsed ?? null,
              session_id: req.sessionId ?? null,
            })
            .returning('id')
            .executeTakeFirstOrThrow();
          // Binary documents are indexed by their summary only; text outputs by summary and text.
          const text = isBinary(mediaType)
            ? (req.contentSummary ?? '')
            : [req.contentSummary, req.content].filter(Boolean).join('\n\n');
          await emit(trx, ctx, {
            sourceTable: 'research_output',
            sourceId: row.id,
            planId: req.planId,
            title: req.title,
            text,
          });
          return { outputId: row.id, mediaType: req.mediaType, title: req.title, stored: true };
        });
      },
    ),

    submitSubagentReport: unary(
      async (req: artifactV1.SubmitSubagentReportRequest, ctx): Promise<artifactV1.SubmitSubagentReportResponse> => {
        if (!req.report)
          throw artifactErrors.INVALID_ARGUMENT({ field: 'report', rule: 'is required (a JSON object)' });
        const report = jsonBody('report', req.report);
        await deps.plans.resolve(ctx, req.planId, req.stepId);
        const title = titleFrom(req.description);
        const text = [req.description, textOf(req.report)].filter(Boolean).join('\n\n');
        return tenant(ctx, async (trx) => {
          const row = await trx
            .insertInto('artifact.research_artifacts')
            .values({
              org_id: ctx.identity.orgId,
              plan_id: req.planId,
              step_id: req.stepId,
              artifact_type: 'analysis',
              source: 'subagent',
              title,
              content: report,
              content_text: text,
              tags: [],
              session_id: req.sessionId ?? null,
            })
            .returning('id')
            .executeTakeFirstOrThrow();
          await emit(trx, ctx, {
            sourceTable: 'research_artifact',
            sourceId: row.id,
            planId: req.planId,
            stepId: req.stepId,
            artifactType: 'analysis',
            title,
            text,
          });
          return { reportId: row.id, stored: true };
        });
      },
    ),

    listPlanArtifacts: unary(
      async (req: artifactV1.ListPlanArtifactsRequest, ctx): Promise<artifactV1.ListPlanArtifactsResponse> => {
        if (!isUuid(req.planId)) return { artifacts: [] };
        const rows = await tenant(ctx, (trx) =>
          trx
            .selectFrom('artifact.research_artifacts')
            .select(['id', 'artifact_type', 'title', 'confidence', 'step_id', 'created_at'])
            .where('plan_id', '=', req.planId)
            .orderBy('created_at')
            .orderBy('id')
            .limit(LIST_LIMIT)
            .execute(),
        );
        return {
          artifacts: rows.map((r) => ({
            id: r.id,
            artifactType: artifactTypes.valueOf(r.artifact_type as 'analysis'),
            title: r.title,
            confidence: r.confidence ?? undefined,
            stepId: r.step_id ?? undefined,
            createdAt: r.created_at,
          })),
        };
      },
    ),

    getArtifactText: unary(
      async (req: artifactV1.GetArtifactTextRequest, ctx): Promise<artifactV1.GetArtifactTextResponse> => {
        const row = isUuid(req.artifactId)
          ? await tenant(ctx, (trx) =>
              trx
                .selectFrom('artifact.research_artifacts')
                .select(['id', 'title', 'plan_id', 'content', 'content_text'])
                .where('id', '=', req.artifactId)
                .executeTakeFirst(),
            )
          : undefined;
        if (!row) throw artifactNotFound(req.artifactId);
        return {
          artifactId: row.id,
          title: row.title,
          text: row.content_text?.trim() ? row.content_text : textOf(row.content),
          planId: row.plan_id ?? undefined,
        };
      },
    ),

    storeExtractionResult: unary(
      async (req: artifactV1.StoreExtractionResultRequest, ctx): Promise<artifactV1.StoreExtractionResultResponse> => {
        const values = extractionRow(req);
        // Any given planId goes to the plan engine, so '' is PLAN_NOT_FOUND rather than a bad row.
        if (req.planId !== undefined) await deps.plans.resolve(ctx, req.planId, req.stepId);
        return tenant(ctx, async (trx) => {
          const sourceId = values.source_artifact_id;
          if (sourceId != null) {
            const found =
              isUuid(sourceId) &&
              (await trx
                .selectFrom('artifact.research_artifacts')
                .select('id')
                .where('id', '=', sourceId)
                .executeTakeFirst());
            if (!found) throw artifactNotFound(sourceId);
          }
          const row = await trx
            .insertInto('artifact.extraction_results')
            .values({ ...values, org_id: ctx.identity.orgId })
            .returning('id')
            .executeTakeFirstOrThrow();
          await emit(trx, ctx, {
            sourceTable: 'extraction_result',
            sourceId: row.id,
            planId: req.planId,
            stepId: req.stepId,
            title: extractionTitle(req.extractionSchema, req.data, req.schemaHash),
            text: extractionText(req.data),
          });
          return { extractionId: row.id };
        });
      },
    ),

    checkExtractionTarget: unary(
      async (req: artifactV1.CheckExtractionTargetRequest, ctx): Promise<artifactV1.CheckExtractionTargetResponse> => {
        // Exactly storeExtractionResult's check, so a target that passes here is one it accepts.
        await deps.plans.resolve(ctx, req.planId, req.stepId);
        return {};
      },
    ),
  };
}
