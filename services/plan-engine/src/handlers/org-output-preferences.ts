import type { planV1 } from '@quarry/contracts';
import type { CallContext } from '@quarry/grpc';
import { sql } from 'kysely';
import { mediaTypes, researchDepths } from '../enums.js';
import { planErrors } from '../errors.js';
import { outputPreferences, type OutputPreferencesRow } from '../store/output-preferences.js';
import { inTenant, type PlanHandlerDeps } from './plan-transaction.js';

/** Instructions are read by a model with every deliverable: a page of text, not a document. */
const MAX_INSTRUCTIONS = 4000;

function preferencesOf(row: OutputPreferencesRow | undefined): planV1.OrgOutputPreferences {
  return {
    outputMediaType: mediaTypes.valueOf((row?.output_media_type ?? 'conversation') as 'conversation'),
    outputFormattingInstructions: row?.output_formatting_instructions ?? undefined,
    defaultDepth: row?.default_depth ? researchDepths.valueOf(row.default_depth) : undefined,
    updatedAt: row?.updated_at,
  };
}

/** GetOrgOutputPreferences (internal, for the web app): the row get_research_context reads. */
export async function getOrgOutputPreferences(
  deps: PlanHandlerDeps,
  _req: planV1.GetOrgOutputPreferencesRequest,
  ctx: CallContext,
): Promise<planV1.GetOrgOutputPreferencesResponse> {
  return { preferences: preferencesOf(await inTenant(deps, ctx, (trx) => outputPreferences(trx))) };
}

/**
 * SetOrgOutputPreferences (internal, for the web app; the gateway lets only admins call it):
 * changes what is given and keeps the rest, in the same row `quarry prefs set` writes.
 */
export async function setOrgOutputPreferences(
  deps: PlanHandlerDeps,
  req: planV1.SetOrgOutputPreferencesRequest,
  ctx: CallContext,
): Promise<planV1.SetOrgOutputPreferencesResponse> {
  const mediaType = mediaTypes.nameOf(req.outputMediaType);
  const depth = researchDepths.nameOf(req.defaultDepth);
  const instructions = req.outputFormattingInstructions?.trim();
  if (instructions !== undefined && instructions.length > MAX_INSTRUCTIONS)
    throw planErrors.INVALID_ARGUMENT({
      field: 'outputFormattingInstructions',
      rule: `must be at most ${MAX_INSTRUCTIONS} characters`,
    });
  const row = await inTenant(deps, ctx, async (trx) => {
    const current = await outputPreferences(trx);
    const next = {
      output_media_type: mediaType ?? current?.output_media_type ?? 'conversation',
      output_formatting_instructions:
        instructions === undefined ? (current?.output_formatting_instructions ?? null) : instructions || null,
      default_depth: depth ?? current?.default_depth ?? null,
      updated_at: sql<Date>`now()`,
    };
    return trx
      .insertInto('plan.output_preferences')
      .values({ org_id: ctx.identity.orgId, ...next })
      .onConflict((oc) => oc.column('org_id').doUpdateSet(next))
      .returningAll()
      .executeTakeFirstOrThrow();
  });
  return { preferences: preferencesOf(row) };
}
