/**
 * A proto enum's values ↔ the short names services store and decide with (`STEP_TYPE_SEARCH` ↔
 * `search`): the prefix every value shares dropped, the rest lowercased — the same names the MCP
 * catalogue offers (catalogue/enums.ts), so a tool's value, a stored row and a core decision all
 * spell a value the same way.
 */
export interface EnumNames<P extends number, N extends string> {
  /** The short name; undefined for the zero `*_UNSPECIFIED` value and for a number the enum does not have. */
  nameOf(value: P | undefined): N | undefined;
  /** The short name, or the error `invalid(field)` when the value is unset, UNSPECIFIED or unknown. */
  required(value: P | undefined, field: string): N;
  /** The enum value of a short name; `fallback` for a name the enum does not have. */
  valueOf(name: N, fallback?: P): P;
}

/**
 * Built from ts-proto's generated `xToJSON` / `xFromJSON` pair of one enum; the shared prefix is
 * read off its zero value (`STEP_TYPE_UNSPECIFIED` → `STEP_TYPE_`). `invalid` makes the error of
 * the service's own catalogue for a required value that is missing.
 */
export function enumNames<P extends number, N extends string>(
  toJson: (value: P) => string,
  fromJson: (name: string) => P,
  invalid: (field: string) => Error,
): EnumNames<P, N> {
  const zero = toJson(0 as P);
  if (!zero.endsWith('_UNSPECIFIED')) throw new Error(`enum zero value ${zero} is not *_UNSPECIFIED`);
  const prefix = zero.slice(0, -'UNSPECIFIED'.length);
  const unknown = fromJson('UNRECOGNIZED');

  function nameOf(value: P | undefined): N | undefined {
    if (value === undefined || value === 0) return undefined;
    const name = toJson(value);
    return name.startsWith(prefix) ? (name.slice(prefix.length).toLowerCase() as N) : undefined;
  }

  return {
    nameOf,
    required(value, field) {
      const name = nameOf(value);
      if (name === undefined) throw invalid(field);
      return name;
    },
    valueOf(name, fallback) {
      const value = fromJson(`${prefix}${name.toUpperCase()}`);
      if (value !== unknown) return value;
      if (fallback !== undefined) return fallback;
      throw new Error(`"${name}" is not a value of the enum ${prefix}*`);
    },
  };
}
