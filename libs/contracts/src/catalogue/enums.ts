import type { DescEnum } from '@bufbuild/protobuf';

/** One enum value as tools see it: a short lowercase name for the proto value. */
export interface EnumValueName {
  readonly short: string;
  readonly number: number;
}

/**
 * Short names of an enum's values, in declaration order. The prefix all values share by buf's
 * ENUM_VALUE_PREFIX convention (the enum's name in UPPER_SNAKE_CASE, as protobuf-es computes it)
 * is removed and the rest lowercased: STEP_TYPE_SEARCH in enum StepType is "search". The zero
 * value `*_UNSPECIFIED` is left out: it means "not set", never a choice to offer. Aliases
 * (allow_alias) keep the first name of a number.
 *
 * The catalogue's schemas and the runtime codec both use this one function, so the names a
 * schema offers are exactly the names the codec accepts and emits.
 */
export function enumValueNames(descEnum: DescEnum): readonly EnumValueName[] {
  const prefixLength = descEnum.sharedPrefix?.length ?? 0;
  const seen = new Set<number>();
  const names: EnumValueName[] = [];
  for (const value of descEnum.values) {
    if (isUnspecified(value.name, value.number) || seen.has(value.number)) continue;
    seen.add(value.number);
    names.push({ short: value.name.slice(prefixLength).toLowerCase(), number: value.number });
  }
  return names;
}

/** True for the conventional "not set" zero value (buf lint ENUM_ZERO_VALUE_SUFFIX). */
function isUnspecified(name: string, number: number): boolean {
  return number === 0 && name.endsWith('_UNSPECIFIED');
}

/** google.protobuf.NullValue is JSON `null`, not a string enum. */
export const NULL_VALUE_ENUM = 'google.protobuf.NullValue';
