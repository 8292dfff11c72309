import { enumValueNames } from './catalogue/enums.js';

/**
 * A proto enum's values ↔ the short names services store and decide with (`STEP_TYPE_SEARCH` ↔
 * `search`): the names the MCP catalogue offers, made by the same rule (`enumValueNames`,
 * catalogue/enums.ts), so a tool's value, a stored row and a core decision all spell a value
 * the same way.
 */
export interface EnumNames<P extends number, N extends string> {
  /** The short name; undefined for the zero `*_UNSPECIFIED` value and for a number the enum does not have. */
  nameOf(value: P | undefined): N | undefined;
  /** The short name, or the error `invalid(field)` when the value is unset, UNSPECIFIED or unknown. */
  required(value: P | undefined, field: string): N;
  /** The enum value of a short name; `fallback` for a name the enum does not have. */
  valueOf(name: N, fallback?: P): P;
}

/** A ts-proto enum object (`planV1.StepType`): each value's name → number, numbers → names, and UNRECOGNIZED (-1). */
type EnumObject<P extends number> = Readonly<Record<string, P | string>>;

const UNSPECIFIED = 'UNSPECIFIED';

/**
 * Built from ts-proto's generated enum object. The values' shared prefix is read off its zero
 * value (`STEP_TYPE_UNSPECIFIED` → `STEP_TYPE_`): by buf's ENUM_ZERO_VALUE_SUFFIX and
 * ENUM_VALUE_PREFIX, which lint holds every proto here to, that is the prefix protobuf-es derives
 * from the enum's name for the catalogue. `invalid` makes the error of the service's own
 * catalogue for a required value that is missing.
 */
export function enumNames<P extends number, N extends string>(
  enumObject: EnumObject<P>,
  invalid: (field: string) => Error,
): EnumNames<P, N> {
  // Named values in declaration order; the reverse (number → name) keys and ts-proto's own
  // UNRECOGNIZED are not values of the proto enum.
  const values = Object.entries(enumObject)
    .filter((entry): entry is [string, P] => typeof entry[1] === 'number' && entry[0] !== 'UNRECOGNIZED')
    .map(([name, number]) => ({ name, number }));
  const zero = values.find((v) => v.number === 0)?.name ?? '';
  if (!zero.endsWith(`_${UNSPECIFIED}`)) throw new Error(`enum zero value ${zero || '(none)'} is not *_${UNSPECIFIED}`);
  const sharedPrefix = zero.slice(0, -UNSPECIFIED.length);
  const unprefixed = values.find((v) => !v.name.startsWith(sharedPrefix));
  if (unprefixed) throw new Error(`enum value ${unprefixed.name} does not start with ${sharedPrefix}`);

  const names = enumValueNames({ sharedPrefix, values });
  const shortByValue = new Map(names.map((v) => [v.number, v.short as N]));
  const valueByShort = new Map(names.map((v) => [v.short, v.number as P]));

  const nameOf = (value: P | undefined) => (value === undefined ? undefined : shortByValue.get(value));
  return {
    nameOf,
    required(value, field) {
      const name = nameOf(value);
      if (name === undefined) throw invalid(field);
      return name;
    },
    valueOf(name, fallback) {
      const value = valueByShort.get(name.toLowerCase());
      if (value !== undefined) return value;
      if (fallback !== undefined) return fallback;
      throw new Error(`"${name}" is not a value of the enum ${sharedPrefix}*`);
    },
  };
}
