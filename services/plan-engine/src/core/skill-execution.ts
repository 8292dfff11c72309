/** Where a skill run is: it starts, executes, then ends completed or failed for good. */
export type SkillStatus = 'started' | 'executing' | 'completed' | 'failed';

/** A finished run never changes status again (repeating its final status is harmless). */
export const isFinishedSkillStatus = (status: string): boolean => status === 'completed' || status === 'failed';
