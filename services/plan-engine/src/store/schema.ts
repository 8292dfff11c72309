import type { ColumnType, Generated } from 'kysely';
import type { JsonValue } from '../core/index.js';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T = JsonValue> = ColumnType<T, string, string>;

/** The `plan` schema as kysely sees it (see migrations/plan). */
export interface PlanDatabase {
  'plan.research_plans': {
    id: string;
    org_id: string;
    name: string;
    research_question: string;
    status: string;
    plan_design_rationale: string | null;
    plan_formatting_notes: string | null;
    session_id: string | null;
    skill_execution_id: string | null;
    created_at: Generated<Date>;
    updated_at: Timestamp;
    archived_at: Timestamp | null;
    cancelled_at: Timestamp | null;
    cancelled_from: string | null;
    cancellation_reason: string | null;
  };
  'plan.plan_steps': {
    id: string;
    org_id: string;
    plan_id: string;
    step_order: number;
    step_type: string;
    instructions: string;
    status: string;
    result: Json | null;
    confidence: number | null;
    step_execution_report: Json | null;
    formatting_notes: string | null;
    started_at: Timestamp | null;
    completed_at: Timestamp | null;
    failure_reason: string | null;
    created_at: Generated<Date>;
    updated_at: Timestamp;
  };
  'plan.branching_conditions': {
    id: string;
    org_id: string;
    plan_id: string;
    step_id: string;
    evaluation_order: number;
    condition_expression: string;
    if_true_action: string;
    target_step_id: string | null;
    created_at: Generated<Date>;
  };
  'plan.user_reviews': {
    id: Generated<string>;
    org_id: string;
    plan_id: string;
    step_id: string;
    summary: string;
    questions: string[];
    requested_session_id: string | null;
    requested_at: Generated<Date>;
    decision: string | null;
    feedback: string | null;
    decided_session_id: string | null;
    decided_at: Timestamp | null;
  };
  'plan.skill_executions': {
    id: Generated<string>;
    org_id: string;
    skill_name: string;
    status: string;
    plan_id: string | null;
    session_id: string | null;
    metadata: Json<Record<string, JsonValue>>;
    error_message: string | null;
    started_at: Generated<Date>;
    updated_at: Timestamp;
    completed_at: Timestamp | null;
    duration_ms: ColumnType<string | null, never, never>;
  };
  'plan.research_feedback': {
    id: Generated<string>;
    org_id: string;
    plan_id: string;
    feedback_type: string;
    user_satisfaction: 'positive' | 'neutral' | 'negative' | 'none' | null;
    user_feedback_summary: string | null;
    improvement_suggestions: string | null;
    follow_up_requested: boolean | null;
    follow_up_details: string | null;
    session_id: string | null;
    created_at: Generated<Date>;
  };
  'plan.output_preferences': {
    org_id: string;
    output_media_type: string;
    output_formatting_instructions: string | null;
    default_depth: ColumnType<'scan' | 'standard' | 'deep' | null, 'scan' | 'standard' | 'deep' | null | undefined>;
    updated_at: Timestamp;
  };
  'plan.step_result_submissions': {
    org_id: string;
    plan_id: string;
    idempotency_key: string;
    step_id: string;
    response: Json<Record<string, JsonValue>>;
    created_at: Generated<Date>;
  };
  'plan.plan_audit_log': {
    id: Generated<string>;
    org_id: string;
    plan_id: string;
    step_id: string | null;
    session_id: string | null;
    event_type: string;
    details: Json<Record<string, unknown>>;
    occurred_at: Timestamp;
    /** Filled by the chain trigger (see the audit_chain migration). */
    chain_seq: Generated<string>;
    prev_hash: Generated<string>;
    row_hash: Generated<string>;
  };
  'plan.deleted_plans': {
    id: Generated<string>;
    org_id: string;
    plan_id: string;
    deleted_by: string;
    request_id: string | null;
    steps_deleted: number;
    artifacts_deleted: number;
    outputs_deleted: number;
    extraction_results_deleted: number;
    audit_rows_purged: number;
    audit_rows_sha256: string;
    deleted_at: Generated<Date>;
    /** [chain_seq, content sha256] of each purged audit row. */
    purged_links: ColumnType<[string, string][], string | undefined, never>;
    chain_seq: Generated<string>;
    prev_hash: Generated<string>;
    row_hash: Generated<string>;
  };
}
