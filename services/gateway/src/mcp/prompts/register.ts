import type { CacheHint, GetPromptResult, Prompt, Server } from '@modelcontextprotocol/server';
import { callerOf } from '../request-context.js';
import type { Tools } from '../tools/call.js';
import { invalidParams, parsePromptArguments } from './arguments.js';
import { promptList, promptSpec } from './catalogue.js';
import { complete } from './completions.js';
import { readPlan } from './plan-reader.js';
import { addStep, deliverOutput, resumeResearch, reviewStep, startResearch } from './texts.js';
import { type Vocabulary, VOCABULARY } from './vocabulary.js';

/** What the endpoint declares for prompts and completions. */
export const PROMPT_CAPABILITIES = { prompts: { listChanged: false }, completions: {} } as const;

/**
 * prompts/list is the same for every caller (no org, token or scope changes it) and changes only
 * with a new release: any cache, shared ones included, may keep it for an hour.
 */
export const PROMPTS_LIST_CACHE_HINT: CacheHint = { ttlMs: 3_600_000, cacheScope: 'public' };

/** Built once per endpoint: the prompt list and the value lists its arguments take. */
export interface PromptFeature {
  tools: Tools;
  vocabulary: Vocabulary;
  prompts: Prompt[];
}

export function createPromptFeature(tools: Tools): PromptFeature {
  return { tools, vocabulary: VOCABULARY, prompts: promptList(VOCABULARY) };
}

/** prompts/list, prompts/get and completion/complete on one per-request server. */
export function registerPrompts(server: Server, feature: PromptFeature): void {
  const { tools, vocabulary } = feature;
  server.setRequestHandler('prompts/list', () => ({ prompts: feature.prompts }));
  server.setRequestHandler('prompts/get', async (request, ctx) => {
    const { name, arguments: raw } = request.params;
    const spec = promptSpec(name);
    if (!spec) throw invalidParams(`Unknown prompt: ${name}. Call prompts/list for the available prompts.`);
    const args = parsePromptArguments(spec, raw, vocabulary);
    if (spec.name === 'start_research') return startResearch(args.question!, args.depth ?? 'standard', vocabulary);
    const plan = await readPlan(tools, callerOf(ctx), args.planId!);
    const texts: Record<Exclude<typeof spec.name, 'start_research'>, () => GetPromptResult> = {
      resume_research: () => resumeResearch(plan),
      deliver_output: () => deliverOutput(plan, args.mediaType!),
      review_step: () => reviewStep(plan),
      add_step: () => addStep(plan, args.stepType!),
    };
    return texts[spec.name]();
  });
  server.setRequestHandler('completion/complete', (request, ctx) =>
    complete(request.params, vocabulary, tools, callerOf(ctx)),
  );
}
