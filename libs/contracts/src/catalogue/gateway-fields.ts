import type { DescField } from '@bufbuild/protobuf';

/**
 * Message types whose root-level fields belong to the gateway's side channel (MCP sampling and
 * model usage, quarry/mcp/v1/sampling.proto; the caller's wait, quarry/mcp/v1/call_budget.proto; embedded resources and images, quarry/mcp/v1/resource.proto): the gateway fills or consumes them, so they are in
 * neither schema, and a caller can never send one.
 */
export const GATEWAY_FIELD_TYPES = {
  'quarry.mcp.v1.ClientSampling': 'clientSampling',
  'quarry.mcp.v1.CallBudget': 'callBudget',
  'quarry.mcp.v1.SamplingRequest': 'samplingRequest',
  'quarry.mcp.v1.ModelUsage': 'modelUsage',
  'quarry.mcp.v1.EmbeddedResource': 'embeddedResource',
  'quarry.mcp.v1.Image': 'image',
} as const;

export type GatewayFieldRole = (typeof GATEWAY_FIELD_TYPES)[keyof typeof GATEWAY_FIELD_TYPES];

export function gatewayFieldRole(field: DescField): GatewayFieldRole | undefined {
  return field.message ? GATEWAY_FIELD_TYPES[field.message.typeName as keyof typeof GATEWAY_FIELD_TYPES] : undefined;
}
