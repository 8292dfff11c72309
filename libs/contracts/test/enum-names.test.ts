import { createFileRegistry, fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { describe, expect, it } from '@jest/globals';
import { enumValueNames } from '../src/catalogue/enums.js';
import {
  artifactV1,
  descriptorSet,
  enumNames,
  extractionV1,
  identityV1,
  mcpV1,
  planV1,
  searchV1,
} from '../src/index.js';

const invalid = (field: string) => new Error(`${field} is invalid`);
const stepTypes = enumNames<planV1.StepType, string>(planV1.StepType, invalid);

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

  it('refuses an enum whose zero is not *_UNSPECIFIED, or whose values do not share its prefix', () => {
    expect(() => enumNames({ NULL_VALUE: 0 }, invalid)).toThrow('enum zero value NULL_VALUE is not *_UNSPECIFIED');
    expect(() => enumNames({ KIND_UNSPECIFIED: 0, KIND_A: 1, OTHER: 2 }, invalid)).toThrow(
      'enum value OTHER does not start with KIND_',
    );
  });

  it('gives the fallback for a name the enum does not have, and throws without one', () => {
    expect(stepTypes.valueOf('teleport', planV1.StepType.STEP_TYPE_UNSPECIFIED)).toBe(0);
    expect(() => stepTypes.valueOf('teleport')).toThrow('"teleport" is not a value of the enum STEP_TYPE_*');
  });
});

describe('one rule for the catalogue and the services', () => {
  // Every enum ts-proto generated, read as the services read it (its enum object) and as the
  // catalogue and the codec read it (its protobuf-es descriptor): the same short names.
  const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, descriptorSet));
  const packages = {
    'quarry.artifact.v1': artifactV1,
    'quarry.extraction.v1': extractionV1,
    'quarry.identity.v1': identityV1,
    'quarry.mcp.v1': mcpV1,
    'quarry.plan.v1': planV1,
    'quarry.search.v1': searchV1,
  };
  // ts-proto names a nested enum Parent_Child.
  const enums = Object.entries(packages).flatMap(([pkg, generated]) =>
    Object.entries(generated as Record<string, unknown>)
      .filter(([, value]) => typeof value === 'object' && (value as { UNRECOGNIZED?: unknown }).UNRECOGNIZED === -1)
      .map(([name, value]) => [`${pkg}.${name.replace(/_/g, '.')}`, value as Record<string, string | number>] as const),
  );

  it('finds the generated enums', () => {
    expect(enums.length).toBeGreaterThan(20);
  });

  it.each(enums)('%s', (typeName, enumObject) => {
    const descEnum = registry.getEnum(typeName);
    expect(descEnum).toBeDefined();
    const services = enumNames<number, string>(enumObject, (field) => new Error(field));
    const catalogue = enumValueNames(descEnum!);
    expect(catalogue.length).toBeGreaterThan(0);
    for (const { short, number } of catalogue) {
      expect(services.nameOf(number)).toBe(short);
      expect(services.valueOf(short)).toBe(number);
    }
    const numbers = Object.values(enumObject).filter((v): v is number => typeof v === 'number' && v >= 0);
    expect(numbers.filter((n) => services.nameOf(n) !== undefined)).toHaveLength(catalogue.length);
  });
});
