import { toolNames as tool } from '@quarry/contracts';
/**
 * The server's `instructions` (served by initialize and server/discover): the research loop in a
 * few lines, for the client's model before it reads any tool description.
 */
export const SERVER_INSTRUCTIONS = [
  'Quarry is the project manager of your research: it keeps plans, hands out their steps and stores what you find; you do the research.',
  `The loop: agree the question with the user, ${tool.createResearchPlan}, then ${tool.getNextStep} → do the step → store findings with ${tool.storeResearch} → ${tool.submitStepResult}, until ${tool.getNextStep} answers plan_complete; then write the deliverable and store it with ${tool.storeResearchOutput}.`,
  `Checkpoints: ${tool.requestUserReview}, show the user, record their answer with ${tool.submitUserDecision}.`,
  `Resume in a new conversation with ${tool.listActivePlans} and ${tool.getResearchContext}; ${tool.searchSources} and ${tool.fetch} find and read what is stored.`,
  'The prompts start_research, resume_research, review_step and deliver_output walk through each part.',
].join('\n');
