/**
 * The shape of an MCP tool as Quarry publishes it. Everything here is derived from proto (see
 * derive.ts); nothing is written by hand beside the .proto files.
 */

/** A JSON Schema (draft 2020-12) object. Kept loose: it is data for clients and validators. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** The schema of a tool's arguments or result: always an object with closed properties. */
export interface ObjectSchema {
  readonly type: 'object';
  readonly properties: { readonly [name: string]: JsonSchema };
  readonly required?: readonly string[];
  readonly additionalProperties: false;
  readonly [keyword: string]: unknown;
}

/**
 * MCP tool annotations. Every hint is explicit so no client falls back to MCP's pessimistic
 * defaults (destructive, open world) for a tool that is neither.
 */
export interface ToolAnnotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

/** The gRPC method a tool call is translated to (exactly one unary call per tool call). */
export interface ToolRpc {
  /** Fully qualified service name, e.g. `quarry.identity.v1.IdentityService`. */
  readonly service: string;
  /** Method name as declared in proto, e.g. `Ping`. */
  readonly method: string;
  /** gRPC path, e.g. `/quarry.identity.v1.IdentityService/Ping`. */
  readonly path: string;
  /** The request field that asks the service to wait before it answers; absent when none. */
  readonly longPoll?: LongPoll;
}

/**
 * A long poll (`(quarry.mcp.v1.long_poll)` on a request field): the caller asks the service to
 * wait up to `maxSeconds` for a change, so the rpc's deadline grows by the seconds asked for. The
 * input schema bounds the field to 0–`maxSeconds` from the same option.
 */
export interface LongPoll {
  /** The field's JSON name, at the root of the arguments, e.g. `waitSeconds`. */
  readonly field: string;
  readonly maxSeconds: number;
}

export interface ToolDefinition {
  /** snake_case, `^[a-z][a-z0-9_]{0,63}$`, unique in the catalogue. */
  readonly name: string;
  readonly title: string;
  /** The rpc's leading comment in proto. */
  readonly description: string;
  /** The request message as JSON Schema, in proto3 JSON (camelCase) naming. */
  readonly inputSchema: ObjectSchema;
  /** The response message as JSON Schema, in proto3 JSON (camelCase) naming. */
  readonly outputSchema: ObjectSchema;
  readonly annotations: ToolAnnotations;
  readonly rpc: ToolRpc;
  /** Root fields the gateway fills or consumes (left out of both schemas); absent when none. */
  readonly gatewayFields?: GatewayFields;
  /** How the tool asks the user directly through the client (`(quarry.mcp.v1.elicit)`); absent when it does not. */
  readonly elicitation?: ToolElicitation;
  /** Result fields that name resources (`(quarry.mcp.v1.resource_link)`); absent when none. */
  readonly resourceLinks?: readonly ResourceLinkField[];
  /**
   * Result fields holding a stored item's address that the gateway gives as its permalink
   * (`(quarry.mcp.v1.permalink)`): their JSON paths from the result's root, lists walked item by
   * item; absent when none.
   */
  readonly permalinks?: readonly (readonly string[])[];
  /** A connection check (`liveness`): counted, but not written to the tool-call log; absent otherwise. */
  readonly liveness?: true;
}

/**
 * A result field naming a resource: the gateway links each non-empty value it finds at `path`
 * (JSON names from the result's root; lists along the way are walked item by item).
 */
export interface ResourceLinkField {
  readonly path: readonly string[];
  /** URI templates with `{}` where the value goes, e.g. `quarry://plans/{}`, or `{}` alone. */
  readonly uris: readonly string[];
}

/**
 * A tool that can put a question to the user through the client (MCP form elicitation), from
 * the rpc's `(quarry.mcp.v1.elicit)` option, checked and resolved against both tools' messages
 * when the catalogue is derived: the gateway only fills in and forwards.
 */
export interface ToolElicitation {
  /** The tool that records the answer (a tool of the same catalogue). */
  readonly answerTool: string;
  /** This tool's argument names passed on to the answer tool unchanged (JSON names, shared by both requests). */
  readonly carry: readonly string[];
  /** This tool's reply fields passed on to the answer tool (JSON names shared with its request, not in `carry`). */
  readonly carryReply: readonly string[];
  /** The form: an MCP elicitation `requestedSchema` (flat primitives; enum options titled). */
  readonly form: ElicitationForm;
  /** The message's first paragraph. */
  readonly lead: string;
  /** Arguments shown after the lead, each as a paragraph (JSON names; `list` for a repeated field). */
  readonly message: readonly { readonly field: string; readonly heading?: string; readonly list: boolean }[];
  /** The response field of type quarry.mcp.v1.ElicitationOutcome the gateway fills (JSON name). */
  readonly outcomeField: string;
  /** For the model, after an accepted answer was recorded. */
  readonly onAccept: string;
  /** For the model, after the user declined or dismissed the form. */
  readonly onDecline: string;
}

/** An MCP form elicitation's requestedSchema: an object of flat, primitive properties. */
export interface ElicitationForm {
  readonly type: 'object';
  readonly properties: { readonly [name: string]: JsonSchema };
  readonly required?: readonly string[];
}

/**
 * The gateway's side channel of a tool, found by type (quarry/mcp/v1/sampling.proto), named by
 * the fields' JSON names. A tool that can ask for a sampling request has both sampling fields.
 */
export interface GatewayFields {
  /** Request field of type quarry.mcp.v1.ClientSampling: the gateway fills it. */
  readonly clientSampling?: string;
  /** Request field of type quarry.mcp.v1.CallBudget: the gateway fills it for clients that cannot wait long. */
  readonly callBudget?: string;
  /** Response field of type quarry.mcp.v1.SamplingRequest: becomes an input-required result. */
  readonly samplingRequest?: string;
  /** Response field of type quarry.mcp.v1.ModelUsage: recorded in the tool-call log. */
  readonly modelUsage?: string;
  /** Response field of type quarry.mcp.v1.EmbeddedResource: becomes an embedded resource in the result's content. */
  readonly embeddedResource?: string;
  /** Response field of type quarry.mcp.v1.Image: becomes image content in the result. */
  readonly image?: string;
}
