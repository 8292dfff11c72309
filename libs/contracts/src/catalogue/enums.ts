/** One enum value as tools see it: a short lowercase name for the proto value. */
export interface EnumValueName {
  readonly short: string;
  readonly number: number;
}

/**
 * What the rule reads of an enum: its values in declaration order, and the prefix they all share.
 * A protobuf-es DescEnum is one (`sharedPrefix` as protobuf-es computes it from the enum's name);
 * `enumNames` makes one from a ts-proto enum object.
 */
export interface EnumValues {
  readonly sharedPrefix?: string;
  readonly values: readonly { readonly name: string; readonly number: number }[];
}

/**
 * Short names of an enum's values, in declaration order. The prefix all values share by buf's
 * ENUM_VALUE_PREFIX convention (the enum's name in UPPER_SNAKE_CASE) is removed and the rest
 * lowercased: STEP_TYPE_SEARCH in enum StepType is "search". The zero value `*_UNSPECIFIED` is
 * left out: it means "not set", never a choice to offer. Aliases (allow_alias) keep the first
 * name of a number.
 *
 * The catalogue's schemas, the runtime codec and the services' `enumNames` all use this one
 * function, so the names a schema offers are exactly the names the codec accepts and emits and
 * the names the services store and decide with.
 */
export function enumValueNames(descEnum: EnumValues): readonly EnumValueName[] {
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
