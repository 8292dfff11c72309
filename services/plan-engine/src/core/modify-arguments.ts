import type { MODIFY_EVENT_TYPES } from './events.js';

type ModifyAction = (typeof MODIFY_EVENT_TYPES)[number];

/** The optional fields of modify_plan; each action uses some of them and must be given exactly those. */
type ModifyField = 'steps' | 'stepId' | 'stepOrder' | 'updatedInstructions' | 'reason';

const MODIFY_FIELDS: Record<ModifyAction, { required: readonly ModifyField[]; optional: readonly ModifyField[] }> = {
  add_steps: { required: ['steps'], optional: [] },
  remove_step: { required: ['stepId'], optional: [] },
  reorder_steps: { required: ['stepOrder'], optional: [] },
  update_step_instructions: { required: ['stepId', 'updatedInstructions'], optional: [] },
  fail_step: { required: ['stepId'], optional: ['reason'] },
};

/**
 * The first field modify_plan(`action`) needs but was not given, else the first one it was given
 * but does not use, as the field and the rule it breaks; `undefined` when the fields fit. One
 * request carries the fields of every action, so a stray one means the caller mixed actions up.
 */
export function modifyFieldViolation(
  action: ModifyAction,
  present: Readonly<Record<ModifyField, boolean>>,
): { field: ModifyField; rule: string } | undefined {
  const { required, optional } = MODIFY_FIELDS[action];
  const missing = required.find((field) => !present[field]);
  if (missing !== undefined) return { field: missing, rule: `is required for action ${action}` };
  const fields = Object.keys(present) as ModifyField[];
  const stray = fields.find((field) => present[field] && !required.includes(field) && !optional.includes(field));
  return stray === undefined ? undefined : { field: stray, rule: `is not used by action ${action}` };
}
