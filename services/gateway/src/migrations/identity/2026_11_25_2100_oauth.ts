import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- Scopes of a personal access token. Existing tokens get read and write, what they could do before.
    alter table identity.personal_access_tokens
      add column scopes text[] not null default array['quarry:read', 'quarry:write']
        check (cardinality(scopes) > 0 and scopes <@ array['quarry:read', 'quarry:write', 'quarry:admin']);
    create trigger personal_access_tokens_scopes_changed
      after update of scopes on identity.personal_access_tokens
      for each row execute function identity.notify_token_changed();

    -- The consent page offers the orgs of the user who has just signed in, before any org is chosen.
    create policy membership_lookup on identity.memberships for select
      using (user_id = nullif(current_setting('app.user_id', true), '')::uuid);
    comment on policy membership_lookup on identity.memberships is
      'quarry:tenant-exempt: the consent page lists the orgs of the one user who has just signed in, to choose one';

    -- A user's sign-in password (argon2id, PHC string). Users belong to no single org.
    create table identity.user_passwords (
      user_id uuid primary key references identity.users (id) on delete cascade,
      password_hash text not null check (password_hash like '$argon2id$%'),
      updated_at timestamptz not null default now()
    );

    -- What a user consented to for one OAuth client, in one org: every token issued under the
    -- grant is bound to this user and org. Revoking it (or removing the membership) refuses its
    -- tokens from the next request on, through the same NOTIFY channel as personal access tokens.
    create table identity.oauth_grants (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null,
      user_id uuid not null,
      grant_id text not null unique,
      client_id text not null,
      client_name text,
      scopes text[] not null check (scopes <@ array['quarry:read', 'quarry:write', 'quarry:admin']),
      created_at timestamptz not null default now(),
      revoked_at timestamptz,
      foreign key (org_id, user_id) references identity.memberships (org_id, user_id) on delete cascade
    );
    create index oauth_grants_org_idx on identity.oauth_grants (org_id, created_at desc);
    alter table identity.oauth_grants enable row level security;
    alter table identity.oauth_grants force row level security;
    create policy tenant_isolation on identity.oauth_grants
      using (org_id = nullif(current_setting('app.org_id', true), '')::uuid)
      with check (org_id = nullif(current_setting('app.org_id', true), '')::uuid);
    create policy grant_lookup on identity.oauth_grants for select
      using (grant_id = nullif(current_setting('app.grant_id', true), ''));
    comment on policy grant_lookup on identity.oauth_grants is
      'quarry:tenant-exempt: the authorization server reads the one grant it is issuing a token for, to learn its org';
    create trigger oauth_grants_changed
      after update of revoked_at, org_id, user_id, scopes or delete on identity.oauth_grants
      for each row execute function identity.notify_token_changed();

    -- The embedded authorization server's records (clients, sessions, interactions, codes,
    -- refresh tokens, grants), one row per record as oidc-provider's adapter contract defines
    -- them. They exist before any org is chosen, so they carry no org_id; no tool reads them.
    create table identity.oauth_provider_state (
      model text not null,
      id text not null,
      payload jsonb not null,
      grant_id text,
      uid text,
      user_code text,
      expires_at timestamptz,
      consumed_at timestamptz,
      primary key (model, id)
    );
    create index oauth_provider_state_grant_idx on identity.oauth_provider_state (grant_id) where grant_id is not null;
    create index oauth_provider_state_uid_idx on identity.oauth_provider_state (uid) where uid is not null;
    create index oauth_provider_state_expiry_idx on identity.oauth_provider_state (expires_at);

    -- Signing keys of the embedded authorization server (private JWKs). Generated on first
    -- start; a rotation adds a key and retires the old one, which still verifies until it is
    -- deleted.
    create table identity.oauth_signing_keys (
      kid text primary key,
      private_jwk jsonb not null,
      created_at timestamptz not null default now(),
      retired_at timestamptz
    );

    -- Sign-ins (and failed ones), consents and token issuance, for operators. A failed sign-in
    -- belongs to no org, so the log names the org by slug; operators read it, no tool does.
    create table identity.auth_events (
      id bigint generated always as identity primary key,
      occurred_at timestamptz not null default now(),
      event text not null,
      email text,
      user_id uuid,
      org_slug text,
      client_id text,
      ip text,
      detail jsonb
    );
    create index auth_events_failed_idx on identity.auth_events (event, occurred_at desc);
  `.execute(db);
}
