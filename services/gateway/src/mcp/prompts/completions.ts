import type { CompleteRequestParams, CompleteResult } from '@modelcontextprotocol/server';
import type { Caller } from '../request-context.js';
import type { Tools } from '../tools/call.js';
import { invalidParams } from './arguments.js';
import { type ArgumentKind, promptSpec } from './catalogue.js';
import { findPlans, recentArtifacts } from './plan-reader.js';
import { looksLikeIdPrefix, matchPlans, MAX_COMPLETIONS, queryWordOf, wordsOf } from './plan-matching.js';
import type { Vocabulary } from './vocabulary.js';

type CompletedKind = ArgumentKind | 'artifactId' | 'outputId' | 'extractionId';

/**
 * The resource templates (served by the resources part of the endpoint) and what each variable
 * holds. Completion for them lives here with the prompt arguments', since both complete the same
 * things: plan IDs by words, closed value lists.
 */
const TEMPLATE_VARIABLES: Readonly<Record<string, Readonly<Record<string, CompletedKind>>>> = {
  'quarry://plans/{planId}': { planId: 'planId' },
  'quarry://plans/{planId}/report': { planId: 'planId' },
  'quarry://artifacts/{artifactId}': { artifactId: 'artifactId' },
  'quarry://outputs/{outputId}': { outputId: 'outputId' },
  'quarry://extractions/{extractionId}': { extractionId: 'extractionId' },
};

const NOTHING: CompleteResult = { completion: { values: [], total: 0, hasMore: false } };

/**
 * completion/complete for prompt arguments (ref/prompt) and resource-template variables
 * (ref/resource). Plan IDs and artifact IDs come from the caller's own organization through the
 * tools its credential may call; without them nothing is offered.
 */
export async function complete(
  params: CompleteRequestParams,
  vocabulary: Vocabulary,
  tools: Tools,
  caller: Caller,
): Promise<CompleteResult> {
  const kind = kindOf(params);
  const typed = params.argument.value;
  switch (kind) {
    case 'depth':
      return offered(vocabulary.depths.filter((v) => v.startsWith(typed.trim().toLowerCase())));
    case 'mediaType':
      return offered(vocabulary.mediaTypes.filter((v) => v.startsWith(typed.trim().toLowerCase())));
    case 'stepType':
      return offered(vocabulary.stepTypes.filter((v) => v.startsWith(typed.trim().toLowerCase())));
    case 'planId':
      return offered(await planIds(tools, caller, typed));
    case 'artifactId':
      return offered(await artifactIds(tools, caller, typed));
    default:
      // Free text (the question) and IDs with no list to draw from (outputs, extractions).
      return NOTHING;
  }
}

function kindOf(params: CompleteRequestParams): CompletedKind {
  const { ref, argument } = params;
  if (ref.type === 'ref/prompt') {
    const spec = promptSpec(ref.name);
    if (!spec) throw invalidParams(`Unknown prompt: ${ref.name}. Call prompts/list for the available prompts.`);
    const arg = spec.arguments.find((a) => a.name === argument.name);
    if (!arg) throw invalidParams(`${spec.name} has no argument "${argument.name}".`);
    return arg.kind;
  }
  const variables = TEMPLATE_VARIABLES[ref.uri];
  if (!variables) throw invalidParams(`Unknown resource template: ${ref.uri}. Call resources/templates/list for them.`);
  const kind = variables[argument.name];
  if (!kind) throw invalidParams(`The template ${ref.uri} has no variable "${argument.name}".`);
  return kind;
}

async function planIds(tools: Tools, caller: Caller, typed: string): Promise<string[]> {
  const word = queryWordOf(typed);
  const found = await findPlans(tools, caller, word, MAX_COMPLETIONS);
  // Words never match an ID: for what could be the start of one, the most recent plans too.
  const recent = word && looksLikeIdPrefix(typed) ? await findPlans(tools, caller, undefined, MAX_COMPLETIONS) : [];
  return matchPlans([...found, ...recent], typed);
}

async function artifactIds(tools: Tools, caller: Caller, typed: string): Promise<string[]> {
  const words = wordsOf(typed);
  const prefix = typed.trim().toLowerCase();
  const artifacts = await recentArtifacts(tools, caller, MAX_COMPLETIONS);
  return artifacts
    .filter((a) => a.id.startsWith(prefix) || words.every((w) => a.title.toLowerCase().includes(w)))
    .map((a) => a.id);
}

function offered(values: readonly string[]): CompleteResult {
  const shown = values.slice(0, MAX_COMPLETIONS);
  return { completion: { values: shown, total: values.length, hasMore: values.length > shown.length } };
}
