import type { DescField, DescOneof } from '@bufbuild/protobuf';
import type { Commented } from './comments.js';

/** `(quarry.mcp.v1.field)` in its proto3 JSON form (only set members present). */
export interface FieldConstraints {
  format?: string;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  required?: boolean;
}

/** `(quarry.mcp.v1.long_poll)` in its proto3 JSON form. */
export interface LongPollOption {
  maxSeconds?: number;
}

/** `(quarry.mcp.v1.resource_link)` in its proto3 JSON form. */
export interface ResourceLinkOption {
  uris?: string[];
}

/** `(quarry.mcp.v1.oneof)` in its proto3 JSON form. */
export interface OneofConstraints {
  required?: boolean;
}

/** What the schema builder needs to know beyond the descriptors themselves. */
export interface SchemaSources {
  describe(desc: Commented): string | undefined;
  fieldConstraints(field: DescField): FieldConstraints | undefined;
  longPoll(field: DescField): LongPollOption | undefined;
  resourceLink(field: DescField): ResourceLinkOption | undefined;
  /** Whether the field carries `(quarry.mcp.v1.permalink) = true`. */
  permalink(field: DescField): boolean;
  oneofConstraints(oneof: DescOneof): OneofConstraints | undefined;
}
