import { artifactV1, enumNames, planV1 } from '@quarry/contracts';

/** How much research a plan is sized for (start_research's `depth`). */
export const DEPTHS = ['quick', 'standard', 'deep'] as const;
export type Depth = (typeof DEPTHS)[number];

/** The closed value lists prompt arguments and template variables take. */
export interface Vocabulary {
  depths: readonly Depth[];
  /** A deliverable's mediaType. */
  mediaTypes: readonly string[];
  /** A plan step's stepType. */
  stepTypes: readonly string[];
}

/**
 * Every value of a proto enum but the zero one, spelled as the tools spell it (`MEDIA_TYPE_WORD`
 * → `word`), in the proto's order.
 */
function valuesOf(enumObject: Record<string, string | number>): string[] {
  const names = enumNames<number, string>(enumObject, (field) => new Error(field));
  return Object.values(enumObject)
    .filter((value): value is number => typeof value === 'number' && value > 0)
    .map((value) => names.nameOf(value)!);
}

/** Read off the proto enums the tools take, so a prompt never offers a value a tool refuses. */
export const VOCABULARY: Vocabulary = Object.freeze({
  depths: DEPTHS,
  mediaTypes: Object.freeze(valuesOf(artifactV1.MediaType)),
  stepTypes: Object.freeze(valuesOf(planV1.StepType)),
});
