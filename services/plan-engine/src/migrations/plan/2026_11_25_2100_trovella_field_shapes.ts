import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// Two stored fields take the shapes of the public tool contract:
// - research_feedback.user_satisfaction becomes positive | neutral | negative | none (it was a
//   1–5 score). Existing scores keep their meaning: 4–5 positive, 3 neutral, 1–2 negative.
// - plan_steps.step_execution_report becomes a JSON object (thinking, searches, tool calls…).
//   A report stored as text is kept whole, as {"report": "<the text>"}.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table plan.research_feedback drop constraint research_feedback_user_satisfaction_check;
    alter table plan.research_feedback alter column user_satisfaction type text using (
      case
        when user_satisfaction is null then null
        when user_satisfaction >= 4 then 'positive'
        when user_satisfaction = 3 then 'neutral'
        else 'negative'
      end);
    alter table plan.research_feedback add constraint research_feedback_user_satisfaction_check
      check (user_satisfaction in ('positive', 'neutral', 'negative', 'none'));

    alter table plan.plan_steps alter column step_execution_report type jsonb using (
      case when step_execution_report is null then null else jsonb_build_object('report', step_execution_report) end);
    alter table plan.plan_steps add constraint plan_steps_step_execution_report_object
      check (jsonb_typeof(step_execution_report) = 'object');
  `.execute(db);
}
