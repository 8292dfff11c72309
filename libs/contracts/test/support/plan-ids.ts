/** Well-formed UUIDs for the plan tools' arguments (plan-tools*.test.ts). */
export const PLAN_ID = '0b6d1c9e-6f1a-4f5e-9a51-2f8e0a4b7c10';
export const STEP_ID = '5a0f3c2e-8d41-4b7a-a0c9-3e6f1d2b9a84';
