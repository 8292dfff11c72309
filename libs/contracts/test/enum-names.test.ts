import { describe, expect, it } from '@jest/globals';
import { enumNames, planV1 } from '../src/index.js';

const invalid = (field: string) => new Error(`${field} is invalid`);
const stepTypes = enumNames<planV1.StepType, string>(planV1.stepTypeToJSON, planV1.stepTypeFromJSON, invalid);

describe('enumNames', () => {
  it('maps every value to its short name and back', () => {
    for (const value of Object.values(planV1.StepType).filter((v): v is planV1.StepType => typeof v === 'number')) {
      if (value <= 0) continue;
      const name = stepTypes.nameOf(value)!;
      expect(name).toBe(planV1.stepTypeToJSON(value).slice('STEP_TYPE_'.length).toLowerCase());
      expect(stepTypes.valueOf(name)).toBe(value);
    }
    expect(stepTypes.nameOf(planV1.StepType.STEP_TYPE_SYNTHESIZE)).toBe('synthesize');
  });

  it('has no name for UNSPECIFIED, an unknown number or an absent value', () => {
    expect(stepTypes.nameOf(planV1.StepType.STEP_TYPE_UNSPECIFIED)).toBeUndefined();
    expect(stepTypes.nameOf(99 as planV1.StepType)).toBeUndefined();
    expect(stepTypes.nameOf(undefined)).toBeUndefined();
  });

  it('raises the caller’s error, naming the field, where a value is required', () => {
    expect(stepTypes.required(planV1.StepType.STEP_TYPE_SEARCH, 'stepType')).toBe('search');
    expect(() => stepTypes.required(planV1.StepType.STEP_TYPE_UNSPECIFIED, 'steps[0].stepType')).toThrow(
      'steps[0].stepType is invalid',
    );
    expect(() => stepTypes.required(42 as planV1.StepType, 'stepType')).toThrow('stepType is invalid');
  });

  it('gives the fallback for a name the enum does not have, and throws without one', () => {
    expect(stepTypes.valueOf('teleport', planV1.StepType.STEP_TYPE_UNSPECIFIED)).toBe(0);
    expect(() => stepTypes.valueOf('teleport')).toThrow('"teleport" is not a value of the enum STEP_TYPE_*');
  });
});
