import { toolNames as tool } from '@quarry/contracts';
import type { GetPromptResult, PromptMessage } from '@modelcontextprotocol/server';
import type { PlanSnapshot, StepSnapshot } from './plan-snapshot.js';
import type { Depth, Vocabulary } from './vocabulary.js';

// The prompt texts: arguments and data in, messages out. They address the client's model and
// name Quarry's tools in the order the research loop uses them; the tools' own descriptions say
// how to fill each call, so the texts do not repeat them.

/** How many steps, of which kinds, each depth asks for. */
const SIZING: Record<Depth, string> = {
  quick:
    '2 to 3 steps: a search step, then a synthesize step (an analyze step between them if the sources need comparing). No checkpoint.',
  standard:
    '4 to 6 steps: search, extract the facts that matter, analyze, a checkpoint so the user reviews the findings, then synthesize.',
  deep: '7 to 12 steps: several search steps from different angles, extract, analyze, a critique step that challenges the findings, a checkpoint before synthesis, then synthesize. Add branching conditions where a confident result makes a later step unnecessary (e.g. skip a second search when confidence >= 0.8).',
};

/** The loop after a plan exists: shared by start_research and resume_research. */
function workLoop(planRef: string): string {
  return [
    `Work through ${planRef} in a loop:`,
    `- ${tool.getNextStep} claims the next step. On next_step, do the work its instructions describe (${tool.getStepContext} first when it builds on earlier steps). Use your own search and reading tools for new sources; ${tool.searchSources} and ${tool.fetch} find and read what Quarry already holds; ${tool.extractData} pulls structured facts out of a source.`,
    `- Store every finding worth keeping with ${tool.storeResearch} (with planId and stepId), then report the step with ${tool.submitStepResult} (a result object and your confidence, 0 to 1). Call ${tool.getNextStep} again.`,
    `- A checkpoint step, or any result that needs a human judgement: ${tool.requestUserReview} with a short summary and questions, show them to the user, and record their answer with ${tool.submitUserDecision}. awaiting_review means such a decision is still missing.`,
    `- no_pending_steps: other agents hold the remaining steps; wait with ${tool.getPlanStatus} (waitSeconds) and try again. plan_failed: stop and tell the user why.`,
    `- plan_complete: write the deliverable in the outputMediaType and with the formatting notes it returns, store it with ${tool.storeResearchOutput}, and give it to the user. Then ask how useful it was and record the answer with ${tool.submitResearchFeedback} (initial).`,
  ].join('\n');
}

export function startResearch(question: string, depth: Depth, vocabulary: Vocabulary): GetPromptResult {
  const text = [
    'Research the following question with Quarry, the research project manager connected to you as an MCP server. Quarry keeps the plan, hands out its steps and stores what you find; you do the research.',
    '',
    `Question: ${question}`,
    '',
    `Depth: ${depth}. Plan ${SIZING[depth]}`,
    '',
    '1. If the question is ambiguous or its scope unclear, agree it with the user in one short exchange first.',
    `2. Call ${tool.createResearchPlan} with a short name, the question as researchQuestion, and the steps (stepType one of ${vocabulary.stepTypes.join(', ')}). Write each step's instructions for whoever carries it out: the goal, where to look, what the result must contain. Say in outputFormattingNotes how the user wants the answer.`,
    `3. ${workLoop('the plan')}`,
  ].join('\n');
  return { description: `Start ${depth} research: ${clip(question, 80)}`, messages: [user(text)] };
}

export function resumeResearch(plan: PlanSnapshot): GetPromptResult {
  const text = [
    `Resume the research plan "${plan.name}" (planId ${plan.planId}) in Quarry.`,
    '',
    planSummary(plan),
    '',
    `1. Call ${tool.getResearchContext} with planId ${plan.planId} (and your sessionId, if you have one) to load the question, every step with its result, the artifacts and the output preferences. Tell the user in two or three sentences where the research stands.`,
    `2. ${nextMove(plan)}`,
    `3. ${workLoop('the remaining steps')}`,
  ].join('\n');
  return { description: `Resume "${plan.name}"`, messages: [user(text), planLink(plan)] };
}

export function deliverOutput(plan: PlanSnapshot, mediaType: string): GetPromptResult {
  const binary = ['word', 'excel', 'powerpoint'].includes(mediaType);
  const text = [
    `Write the deliverable of the research plan "${plan.name}" (planId ${plan.planId}) as ${mediaType}, and store it in Quarry.`,
    '',
    planSummary(plan),
    ...(plan.pendingSteps.length > 0 || plan.currentStep
      ? ['', 'Not every step is finished: say in the deliverable what it does not cover yet.']
      : []),
    '',
    `1. Call ${tool.getResearchContext} with planId ${plan.planId}: it returns every step's result, the plan's artifacts and the user's output preferences (formatting instructions and notes). Read any artifact you need in full with ${tool.getArtifact}.`,
    `2. Write the deliverable from those results, following the preferences: answer the research question first, then the evidence, with its sources.${
      binary
        ? ` A ${mediaType} document goes to Quarry as its bytes, base64-encoded, with a short contentSummary of what it says (only the summary is searchable).`
        : ''
    }`,
    `3. Store it with ${tool.storeResearchOutput} (planId ${plan.planId}, mediaType ${mediaType}, a title, the content, a contentSummary, and the formattingNotesUsed), and give it to the user.`,
    `4. Ask the user how useful it was and record the answer with ${tool.submitResearchFeedback} (initial).`,
  ].join('\n');
  return { description: `Deliver "${plan.name}" as ${mediaType}`, messages: [user(text), planLink(plan)] };
}

export function reviewStep(plan: PlanSnapshot): GetPromptResult {
  const step = plan.currentStep?.status === 'awaiting_input' ? plan.currentStep : undefined;
  const text = step
    ? [
        `A step of the research plan "${plan.name}" (planId ${plan.planId}) waits for the user's review.`,
        '',
        `Step ${step.stepOrder}${step.stepType ? ` (${step.stepType})` : ''}, stepId ${step.stepId}: ${clip(step.instructions, 600)}`,
        '',
        `1. Call ${tool.getStepContext} with planId ${plan.planId} and stepId ${step.stepId} to see the step, the results it builds on and the plan's artifacts.`,
        "2. Show the user what the step found and the reviewer's questions, plainly and briefly. Ask for one decision: approve (the plan goes on), modify (say what to change: the step is redone with that feedback), skip (the plan goes on without it) or reject (the whole plan fails).",
        `3. Record exactly what the user decided with ${tool.submitUserDecision} (planId ${plan.planId}, stepId ${step.stepId}, the decision, and their words as feedback). Never decide for them.`,
        `4. Then carry on with ${tool.getNextStep} (after modify, redo the step and submit its result again).`,
      ]
    : [
        `No step of the research plan "${plan.name}" (planId ${plan.planId}) is waiting for review right now.`,
        '',
        planSummary(plan),
        '',
        `Tell the user so. If they want to review a step that is in progress, call ${tool.requestUserReview} for it with a summary and questions, show those to them, and record their answer with ${tool.submitUserDecision}.`,
      ];
  return { description: `Review a step of "${plan.name}"`, messages: [user(text.join('\n')), planLink(plan)] };
}

export function addStep(plan: PlanSnapshot, stepType: string): GetPromptResult {
  const text = [
    `Add a ${stepType} step to the research plan "${plan.name}" (planId ${plan.planId}).`,
    '',
    planSummary(plan),
    '',
    '1. Ask the user what the step should do if they have not said, and where it belongs (by default after the last pending step).',
    `2. Call ${tool.modifyPlan} with planId ${plan.planId}, action add_steps and one step: stepType ${stepType}, instructions written for whoever carries it out (the goal, where to look, what the result must contain), and insertAfterOrder when it does not go at the end. Give a modificationRationale with the user's reason.`,
    `3. Show the user the plan's steps as ${tool.modifyPlan} returns them. Only a plan that is planning or executing can change: if ${tool.modifyPlan} refuses, say why.`,
  ].join('\n');
  return { description: `Add a ${stepType} step to "${plan.name}"`, messages: [user(text), planLink(plan)] };
}

/** The plan's state in a few lines: what the model needs to decide its first move. */
function planSummary(plan: PlanSnapshot): string {
  const lines = [
    `Status: ${plan.status ?? 'unknown'}${plan.stalled ? ' (stalled: a step has been in progress for over 30 minutes)' : ''}; ${Math.round(plan.progress)}% of ${plan.totalSteps} steps done.`,
  ];
  if (plan.currentStep) lines.push(`Current: ${stepLine(plan.currentStep)}`);
  if (plan.completedSteps.length > 0) lines.push(`Done: ${plan.completedSteps.map(shortStep).join('; ')}`);
  if (plan.pendingSteps.length > 0) lines.push(`Pending: ${plan.pendingSteps.map(shortStep).join('; ')}`);
  return lines.join('\n');
}

function nextMove(plan: PlanSnapshot): string {
  switch (plan.status) {
    case 'awaiting_review':
      return `A step waits for the user's review: show it to them (${tool.getStepContext}) and record their decision with ${tool.submitUserDecision} before anything else.`;
    case 'stalled':
      return `The plan is stalled: ask the user whether to keep waiting for the agent holding the step, or give up on that step with ${tool.modifyPlan} (fail_step).`;
    case 'completed':
      return 'Every step is done: if the user has no deliverable yet, write it (see plan_complete below).';
    case 'failed':
    case 'cancelled':
      return `The plan is ${plan.status}: no more steps are handed out. Tell the user what it found; start a new plan if they want to go on.`;
    default:
      return 'Carry on where it stopped.';
  }
}

function stepLine(step: StepSnapshot): string {
  return `step ${step.stepOrder}${step.stepType ? ` (${step.stepType})` : ''}, ${step.status ?? 'pending'}, stepId ${step.stepId}: ${clip(step.instructions, 200)}`;
}

function shortStep(step: StepSnapshot): string {
  return `${step.stepOrder}. ${step.stepType ?? 'step'}: ${clip(step.instructions, 80)}`;
}

function user(text: string): PromptMessage {
  return { role: 'user', content: { type: 'text', text } };
}

/** A link to the plan's resource, which a client can read for the plan's live status. */
function planLink(plan: PlanSnapshot): PromptMessage {
  return {
    role: 'user',
    content: {
      type: 'resource_link',
      uri: `quarry://plans/${plan.planId}`,
      name: plan.name,
      mimeType: 'application/json',
      description: "The plan's status in Quarry.",
    },
  };
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
