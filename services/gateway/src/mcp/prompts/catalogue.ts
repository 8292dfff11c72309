import type { Prompt } from '@modelcontextprotocol/server';
import type { Vocabulary } from './vocabulary.js';

/** What an argument holds: decides how it is checked and how completion/complete offers values. */
export type ArgumentKind = 'question' | 'planId' | 'depth' | 'mediaType' | 'stepType';

export interface ArgumentSpec {
  name: string;
  kind: ArgumentKind;
  required: boolean;
  description: string;
}

export interface PromptSpec {
  name: PromptName;
  title: string;
  description: string;
  arguments: readonly ArgumentSpec[];
}

export type PromptName = 'start_research' | 'resume_research' | 'deliver_output' | 'review_step' | 'add_step';

const planId: ArgumentSpec = {
  name: 'planId',
  kind: 'planId',
  required: true,
  description: 'The research plan (completion finds your plans by words of their name or question).',
};

/**
 * The research workflow as prompts: each one a part of the loop a user starts by name (a slash
 * command in most clients). The same for every caller, so prompts/list can be cached publicly.
 */
const PROMPT_SPECS: readonly PromptSpec[] = [
  {
    name: 'start_research',
    title: 'Start research',
    description: 'Plan a new piece of research with Quarry and work through it step by step.',
    arguments: [
      { name: 'question', kind: 'question', required: true, description: 'The research question.' },
      {
        name: 'depth',
        kind: 'depth',
        required: false,
        description: 'How thorough: quick, standard (default) or deep.',
      },
    ],
  },
  {
    name: 'resume_research',
    title: 'Resume research',
    description: 'Pick up a research plan where it stopped, for example in a new conversation.',
    arguments: [planId],
  },
  {
    name: 'deliver_output',
    title: 'Deliver output',
    description: "Write a plan's deliverable from its results and store it in Quarry.",
    arguments: [
      planId,
      { name: 'mediaType', kind: 'mediaType', required: true, description: 'The form of the deliverable.' },
    ],
  },
  {
    name: 'review_step',
    title: 'Review step',
    description: 'Show the user the step waiting for their review and record their decision.',
    arguments: [planId],
  },
  {
    name: 'add_step',
    title: 'Add step',
    description: 'Add a step of a given kind to a plan that is still running.',
    arguments: [planId, { name: 'stepType', kind: 'stepType', required: true, description: 'The kind of step.' }],
  },
];

/** The prompts/list payload; closed value lists are spelled out in the argument descriptions. */
export function promptList(vocabulary: Vocabulary): Prompt[] {
  const values: Partial<Record<ArgumentKind, readonly string[]>> = {
    mediaType: vocabulary.mediaTypes,
    stepType: vocabulary.stepTypes,
  };
  return PROMPT_SPECS.map((spec) => ({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    arguments: spec.arguments.map((arg) => {
      const allowed = values[arg.kind];
      return {
        name: arg.name,
        description: allowed ? `${arg.description} One of: ${allowed.join(', ')}.` : arg.description,
        required: arg.required,
      };
    }),
  }));
}

export function promptSpec(name: string): PromptSpec | undefined {
  return PROMPT_SPECS.find((spec) => spec.name === name);
}
