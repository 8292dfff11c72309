import { type CallContext, QuarryError } from '@quarry/grpc';
import type { ArtifactPort, CitedArtifact } from '../artifacts.js';
import { type CitationTarget, normaliseDoi, normaliseUrl, targetKey } from './claim-parsing.js';
import { sourcePassages } from './source-passages.js';
import type { LoadedSource, Resolution } from './verification.js';

/**
 * What the citations of a text lead to, read through the artifact store under the caller's org:
 * a Quarry link opens its artifact or deliverable (a missing and another org's alike are
 * missing); a DOI or web address is matched against the `doi` and `url` fields stored in the
 * content of the plan's artifacts (without a plan, nothing to match: unmatched). Each source is
 * read once.
 */

/** Most plan artifacts read for DOI/address matching and scope "plan". */
const MAX_PLAN_SOURCES = 200;

export interface CitationSources {
  resolved: Map<string, Resolution>;
  /** The plan's sources, read when asked for or needed to match DOIs and addresses. */
  plan: LoadedSource[] | undefined;
}

function toLoaded(found: CitedArtifact): LoadedSource {
  return { id: found.id, text: found.text, passages: sourcePassages(found.id, found.text, found.units) };
}

export async function resolveCitations(
  artifacts: ArtifactPort,
  ctx: CallContext,
  targets: readonly CitationTarget[],
  options: { planId?: string; readPlan: boolean; excludeOutputId?: string },
): Promise<CitationSources> {
  const resolved = new Map<string, Resolution>();
  const needsPlan = options.readPlan || targets.some((t) => t.kind === 'doi' || t.kind === 'url');
  const plan: Array<LoadedSource & { urls: string[]; dois: string[] }> | undefined =
    needsPlan && options.planId ? [] : undefined;
  if (plan && options.planId) {
    const ids = (await artifacts.planArtifactIds(ctx, options.planId)).slice(0, MAX_PLAN_SOURCES);
    for (const id of ids) {
      const found = await artifacts.loadSource(ctx, id);
      if (found)
        plan.push({ ...toLoaded(found), urls: found.urls.map(normaliseUrl), dois: found.dois.map(normaliseDoi) });
    }
  }
  for (const target of targets) {
    const key = targetKey(target);
    if (resolved.has(key)) continue;
    resolved.set(key, await resolveOne(artifacts, ctx, target, plan, options.excludeOutputId));
  }
  return { resolved, plan: options.readPlan ? plan : undefined };
}

async function resolveOne(
  artifacts: ArtifactPort,
  ctx: CallContext,
  target: CitationTarget,
  plan: Array<LoadedSource & { urls: string[]; dois: string[] }> | undefined,
  excludeOutputId: string | undefined,
): Promise<Resolution> {
  switch (target.kind) {
    case 'artifact': {
      const inPlan = plan?.find((s) => s.id === target.id);
      if (inPlan) return { source: inPlan };
      const found = await artifacts.loadSource(ctx, target.id);
      return found ? { source: toLoaded(found) } : { missing: true };
    }
    case 'output': {
      // A deliverable citing itself is no evidence for itself.
      if (target.id === excludeOutputId) return { missing: true };
      try {
        const output = await artifacts.loadOutput(ctx, target.id);
        return { source: { id: target.id, text: output.text, passages: sourcePassages(target.id, output.text) } };
      } catch (error) {
        if (error instanceof QuarryError && error.code === 'OUTPUT_NOT_FOUND') return { missing: true };
        throw error;
      }
    }
    case 'doi': {
      const found = plan?.find((s) => s.dois.includes(target.doi));
      return found ? { source: found } : { unmatched: true };
    }
    case 'url': {
      const found = plan?.find((s) => s.urls.includes(target.url));
      return found ? { source: found } : { unmatched: true };
    }
  }
}
