export { buildServer, type GatewayDeps, type GatewayHttpOptions } from './server.js';
export { createGatewayRuntime, type GatewayRuntimeOptions } from './runtime.js';
export { startGateway } from './start.js';
export { loadGatewayConfig, type GatewayConfig } from './config.js';
export { gatewaySchemas } from './migrations/index.js';
export { createIdentityAdmin, IdentityAdminError, type IdentityAdmin, type TokenSummary } from './identity/admin.js';
export { createTokenAuthenticator, type TokenAuthenticator } from './identity/authenticator.js';
export type { AuthResult, AuthFailure } from './identity/auth-result.js';
export type { IdentityDatabase, Principal } from './identity/schema.js';
export { createOAuthAdmin, type OAuthAdmin, type GrantSummary, type ClientSummary } from './oauth/admin.js';
export { SCOPES, parseScopes } from './identity/scopes.js';
export {
  createServiceAccountAdmin,
  type ServiceAccountAdmin,
  type ServiceAccountSummary,
  type IssuedServiceAccount,
} from './identity/service-accounts.js';
export { parseToolNames } from './identity/tool-allowlist.js';
export { generateToken, hashToken, isWellFormedToken, TOKEN_PREFIX } from './identity/tokens.js';
export { createTools, type Tools } from './mcp/tools/call.js';
export { createPermalinks } from './web/permalinks.js';
export { createLocalBackend, type ToolBackend } from './mcp/tools/backends.js';
export { createToolCallLog, type ToolCallLog, type ToolCallRecord } from './tool-call-log.js';
export { httpErrors, jsonRpcErrorBody, toolErrorFromStatus } from './errors.js';
