/**
 * A skill run starts, executes, then ends completed or failed for good: a finished run never
 * changes status again (repeating its final status is harmless).
 */
export const isFinishedSkillStatus = (status: string): boolean => status === 'completed' || status === 'failed';
