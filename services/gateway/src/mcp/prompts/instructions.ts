/**
 * The server's `instructions` (served by initialize and server/discover): the research loop in a
 * few lines, for the client's model before it reads any tool description.
 */
export const SERVER_INSTRUCTIONS = [
  'Quarry is the project manager of your research: it keeps plans, hands out their steps and stores what you find; you do the research.',
  'The loop: agree the question with the user, create_research_plan, then get_next_step → do the step → store findings with store_research → submit_step_result, until get_next_step answers plan_complete; then write the deliverable and store it with store_research_output.',
  'Checkpoints: request_user_review, show the user, record their answer with submit_user_decision.',
  'Resume in a new conversation with list_active_plans and get_research_context; search_sources and fetch find and read what is stored.',
  'The prompts start_research, resume_research, review_step and deliver_output walk through each part.',
].join('\n');
