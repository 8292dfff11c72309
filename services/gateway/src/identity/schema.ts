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
}

/** Who is calling: resolved from a personal access token, carried through every request. */
export interface Principal {
  readonly tokenId: string;
  readonly orgId: string;
  readonly orgSlug: string;
  readonly userId: string;
  readonly email: string;
  readonly name: string;
  readonly expiresAt: Date | null;
}
