import type { Scope } from '@quarry/contracts';

// The scope model is shared with the services, which enforce it on direct gRPC callers
// (service accounts): it lives in @quarry/contracts beside the catalogue it is derived from.
export { SCOPES, allows, isScope, parseScopes, scopeForTool, type Scope } from '@quarry/contracts';

/** What a personal access token gets when none are named: what every token could do before scopes. */
export const DEFAULT_TOKEN_SCOPES: readonly Scope[] = ['quarry:read', 'quarry:write'];
