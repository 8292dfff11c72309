// @quarry/cursors: the page cursors every service hands to clients, sealed with a key derived
// from the identity key and bound to a scope (the rpc, the org, the filters or the item), with
// keyset positions as a first-class kind (docs/adr/0024-read-back-budget-and-urls.md).
export { createCursorCodec, type CursorCodec, type PositionReader } from './cursor-codec.js';
export { cursorScope, type CursorScope } from './cursor-scope.js';
export { readKeyset, type KeysetPosition } from './keyset.js';
