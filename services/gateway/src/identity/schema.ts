import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface IdentityDatabase {
  'identity.organizations': { id: Generated<string>; slug: string; name: string; created_at: Generated<Date> };
  'identity.users': { id: Generated<string>; email: string; name: string; created_at: Generated<Date> };
  'identity.memberships': {
    org_id: string;
    user_id: string;
    role: Generated<'owner' | 'admin' | 'member'>;
    created_at: Generated<Date>;
  };
  'identity.personal_access_tokens': {
    id: Generated<string>;
    org_id: string;
    user_id: string;
    name: string;
    token_hash: Buffer;
    token_hint: string;
    created_at: Generated<Date>;
    last_used_at: Timestamp | null;
    expires_at: Timestamp | null;
    revoked_at: Timestamp | null;
    scopes: ColumnType<string[], string[] | undefined, string[]>;
    tools: ColumnType<string[] | null, string[] | null | undefined, string[] | null>;
  };
  'identity.service_accounts': {
    id: Generated<string>;
    org_id: string;
    name: string;
    client_id: string;
    secret_hash: Buffer;
    secret_hint: string;
    scopes: string[];
    created_at: Generated<Date>;
    secret_rotated_at: Timestamp | null;
    revoked_at: Timestamp | null;
  };
  'identity.invitations': {
    id: Generated<string>;
    org_id: string;
    email: string;
    role: 'admin' | 'member';
    token_hash: Buffer;
    invited_by: string | null;
    created_at: Generated<Date>;
    expires_at: Timestamp;
    accepted_at: Timestamp | null;
    accepted_by: string | null;
    revoked_at: Timestamp | null;
  };
  'identity.user_passwords': { user_id: string; password_hash: string; updated_at: Generated<Date> };
  'identity.oauth_grants': {
    id: Generated<string>;
    org_id: string;
    user_id: string;
    grant_id: string;
    client_id: string;
    client_name: string | null;
    scopes: string[];
    tools: ColumnType<string[] | null, string[] | null | undefined, string[] | null>;
    created_at: Generated<Date>;
    revoked_at: Timestamp | null;
  };
  'identity.oauth_provider_state': {
    model: string;
    id: string;
    payload: ColumnType<Record<string, unknown>, string, string>;
    grant_id: string | null;
    uid: string | null;
    user_code: string | null;
    expires_at: Timestamp | null;
    consumed_at: Timestamp | null;
  };
  'identity.oauth_signing_keys': {
    kid: string;
    private_jwk: ColumnType<Record<string, unknown>, string, string>;
    created_at: Generated<Date>;
    retired_at: Timestamp | null;
  };
  'identity.auth_events': {
    id: Generated<string>;
    occurred_at: Generated<Date>;
    event: string;
    email: string | null;
    user_id: string | null;
    org_slug: string | null;
    client_id: string | null;
    ip: string | null;
    detail: ColumnType<Record<string, unknown> | null, string | null, string | null>;
  };
  'gateway.mcp_tool_call_log': {
    id: Generated<string>;
    occurred_at: Timestamp;
    org_id: string;
    user_id: string | null;
    token_id: string | null;
    request_id: string;
    tool: string;
    duration_ms: number;
    outcome: 'ok' | 'tool_error' | 'protocol_error' | 'input_required';
    error_code: string | null;
    argument_bytes: number;
    input_tokens: number | null;
    output_tokens: number | null;
  };
  /** Calls per minute the operator set for an org, per tool class (quotas/tool-classes.ts). */
  'gateway.org_call_quotas': {
    org_id: string;
    tool_class: string;
    calls_per_minute: number;
    updated_at: Generated<Date>;
  };
}

/**
 * Who is calling: resolved from a personal access token or an OAuth access token, carried
 * through every request. `tokenId` is the token's id, or the OAuth grant's.
 */
export interface Principal {
  readonly tokenId: string;
  readonly orgId: string;
  readonly orgSlug: string;
  readonly userId: string;
  readonly email: string;
  readonly name: string;
  readonly expiresAt: Date | null;
  /** What the credential allows (`quarry:read`, `quarry:write`, `quarry:admin`). */
  readonly scopes: readonly string[];
  /** The tools it may call, by name (its allowlist); null: every tool its scopes allow. */
  readonly tools: readonly string[] | null;
}
