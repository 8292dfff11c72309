// What one MCP client sends to a server it is given only the URL of, as recorded from the
// client's public source or documentation. Each fixture names where every value came from in
// `source`; a value that is not public says so there and is the default of the SDK the client
// is built on. client-replay.ts and client-session.ts send exactly these requests.

/** How the client gets a client id from Quarry's authorization server. */
export type Registration =
  /**
   * Dynamic Client Registration (RFC 7591): this body, POSTed as JSON. `{port}` is the loopback
   * port the client picked for this run; `scopeInBody` adds the scope it selected, as the SDKs do.
   */
  | { kind: 'dcr'; body: Record<string, unknown>; scopeInBody: boolean }
  /**
   * A Client ID Metadata Document: the client id is the document's https URL, served as recorded.
   * `onlyWithNone`: the client uses it only when `none` is an advertised token endpoint method.
   */
  | { kind: 'cimd'; clientId: string; document: Record<string, unknown>; onlyWithNone?: boolean };

/**
 * Which scope the client asks for: the protected-resource metadata's `scopes_supported` (the MCP
 * specification's default), the authorization server's `scopes_supported`, either of those with
 * `offline_access` added when the authorization server lists it, or no `scope` at all.
 */
export type ScopeChoice = 'protected-resource' | 'authorization-server' | 'protected-resource+offline' | 'none';

export interface ClientFixture {
  /** The client as people name it. */
  name: string;
  /** Where each value came from (a URL, or repo@commit:path), by the field it sourced. */
  source: Readonly<Record<string, string>>;
  registration: Registration;
  /** The redirect URI the client sends when it authorizes; `{port}` is the loopback port of this run. */
  redirectUri: string;
  scope: ScopeChoice;
  /** The RFC 8707 `resource` it sends on authorize and token: the URL it was given, or the metadata's `resource`. */
  resource: 'server-url' | 'metadata-resource';
  /** Token endpoint authentication, in the client's order of preference; it uses the first Quarry advertises. */
  tokenAuth: readonly ('none' | 'private_key_jwt')[];
  mcp: {
    protocolVersion: string;
    clientInfo: { name: string; version: string };
    capabilities: Record<string, unknown>;
    /** Headers on every MCP POST besides Authorization, as the client sends them (lower-case names). */
    headers: Readonly<Record<string, string>>;
    /** Whether the client sends `MCP-Protocol-Version` on the requests after initialize. */
    sendsProtocolVersionHeader: boolean;
  };
  /** What a session of this client does: a research plan (write, then read back), or ChatGPT's research contract. */
  work: 'plan' | 'chatgpt-research';
  /** The branches whose work this case needs while it is not in main: until then the case fails. */
  waitsFor: readonly string[];
}
