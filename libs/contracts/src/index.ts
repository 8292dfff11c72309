/**
 * @quarry/contracts: the proto-first contracts of Quarry.
 *
 * proto/ is the single source: `npm run proto` generates the ts-proto code for services and
 * clients (re-exported below, one namespace per proto package), the MCP tool catalogue derived
 * from the rpcs that carry `(quarry.mcp.v1.tool)`, and the descriptor set that gRPC reflection
 * and the tool codecs run on. See docs/adr/0002-proto-first-tool-catalogue.md.
 */
import type { ToolDefinition } from './catalogue/types.js';
import { createToolCodec as createCodec, type ToolCodec } from './codec.js';
import { deepFreeze } from './freeze.js';
import { toolDefinitions } from './gen/catalogue.js';
export { toolNames } from './gen/catalogue.js';
import { descriptorSetBase64 } from './gen/descriptor-set.js';

export type {
  ElicitationForm,
  GatewayFields,
  JsonSchema,
  ObjectSchema,
  ResourceLinkField,
  ToolAnnotations,
  ToolDefinition,
  ToolElicitation,
  ToolRpc,
} from './catalogue/types.js';
export { type ToolCodec } from './codec.js';
export { ContractError, type ContractIssue } from './contract-error.js';
export { enumNames, type EnumNames } from './enum-names.js';
export {
  legacyPermalinkPath,
  parseItemReference,
  parsePermalinkPath,
  parseSourceUrl,
  permalinkPath,
  sourceUrl,
  type SourceTableName,
} from './source-url.js';
export { SCOPES, allows, isScope, parseScopes, scopeForRpc, scopeForTool, type Scope } from './scopes.js';

/** Every MCP tool, sorted by name, deeply frozen: the gateway lists and dispatches these. */
export const toolCatalogue: readonly ToolDefinition[] = deepFreeze(toolDefinitions);

/**
 * google.protobuf.FileDescriptorSet (binary) of every proto file with its imports, for gRPC
 * reflection (e.g. `@grpc/proto-loader`'s loadFileDescriptorSetFromBuffer) and the codecs.
 * Shared: do not modify it.
 */
export const descriptorSet: Uint8Array = new Uint8Array(Buffer.from(descriptorSetBase64, 'base64'));

/**
 * JSON arguments ↔ protobuf bytes for one tool's rpc; cached per tool, so calling it again is
 * free. Build all codecs at startup: the first call compiles the input validator.
 * `descriptors` defaults to this package's descriptor set (tests pass their own).
 */
export function createToolCodec(tool: ToolDefinition, descriptors: Uint8Array = descriptorSet): ToolCodec {
  return createCodec(tool, descriptors);
}

// Generated code per proto package: messages (encode/decode/fromJSON/toJSON), the grpc-js
// service definition (e.g. IdentityServiceService), server interface and client.
export * as artifactV1 from './gen/quarry/artifact/v1/artifact.js';
export * as extractionV1 from './gen/quarry/extraction/v1/extraction.js';
export * as identityV1 from './gen/quarry/identity/v1/identity.js';
export * as mcpV1 from './gen/quarry/mcp/v1/sampling.js';
export * as planV1 from './gen/quarry/plan/v1/plan.js';
export * as searchV1 from './gen/quarry/search/v1/search.js';
