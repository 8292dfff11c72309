declare const scopeBrand: unique symbol;

/** What a cursor is valid for; made by `cursorScope` only, so every caller binds the same way. */
export type CursorScope = string & { readonly [scopeBrand]: true };

/**
 * The scope of a cursor: the rpc or tool that pages (`name`) and everything its positions are
 * only meaningful under: the caller's org, the filters of a list (in a fixed order, sets sorted),
 * the item a text belongs to. Values are compared as JSON, so `undefined` and `null` are alike
 * and a Date counts by its ISO time. The scope is never written into the cursor: it enters the
 * seal, so a cursor opened under any other scope fails exactly like a forged one.
 */
export function cursorScope(name: string, ...boundTo: readonly unknown[]): CursorScope {
  return JSON.stringify([name, ...boundTo]) as CursorScope;
}
