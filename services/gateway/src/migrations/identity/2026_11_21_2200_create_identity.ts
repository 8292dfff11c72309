import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table identity.organizations (
      id uuid primary key default gen_random_uuid(),
      slug text not null unique check (slug ~ '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'),
      name text not null,
      created_at timestamptz not null default now()
    );

    create table identity.users (
      id uuid primary key default gen_random_uuid(),
      email text not null unique check (email = lower(email) and email ~ '^[^@[:space:]]+@[^@[:space:]]+$'),
      name text not null,
      created_at timestamptz not null default now()
    );

    create table identity.memberships (
      org_id uuid not null references identity.organizations (id) on delete cascade,
      user_id uuid not null references identity.users (id) on delete cascade,
      role text not null default 'member' check (role in ('owner', 'admin', 'member')),
      created_at timestamptz not null default now(),
      primary key (org_id, user_id)
    );
    create index memberships_user_idx on identity.memberships (user_id);

    create table identity.personal_access_tokens (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null,
      user_id uuid not null,
      name text not null check (length(name) between 1 and 200),
      token_hash bytea not null unique check (octet_length(token_hash) = 32),
      token_hint text not null,
      created_at timestamptz not null default now(),
      last_used_at timestamptz,
      expires_at timestamptz,
      revoked_at timestamptz,
      foreign key (org_id, user_id) references identity.memberships (org_id, user_id) on delete cascade
    );
    create index personal_access_tokens_org_idx on identity.personal_access_tokens (org_id, created_at desc);

    alter table identity.memberships enable row level security;
    alter table identity.memberships force row level security;
    create policy tenant_isolation on identity.memberships
      using (org_id = nullif(current_setting('app.org_id', true), '')::uuid)
      with check (org_id = nullif(current_setting('app.org_id', true), '')::uuid);

    alter table identity.personal_access_tokens enable row level security;
    alter table identity.personal_access_tokens force row level security;
    create policy tenant_isolation on identity.personal_access_tokens
      using (org_id = nullif(current_setting('app.org_id', true), '')::uuid)
      with check (org_id = nullif(current_setting('app.org_id', true), '')::uuid);
    -- Authentication happens before the tenant is known: a caller may read exactly the token
    -- whose hash it presents, which requires holding the token itself.
    create policy token_lookup on identity.personal_access_tokens for select
      using (token_hash = decode(nullif(current_setting('app.token_hash', true), ''), 'hex'));
    comment on policy token_lookup on identity.personal_access_tokens is
      'quarry:tenant-exempt: authentication reads the one token whose SHA-256 the caller presents, before the tenant is known';

    -- Gateways cache authenticated tokens; a change that can end a token's validity (revocation,
    -- expiry, delete, including cascades) tells them to forget it at once. last_used_at is not in
    -- the list: its batched updates must not flush the caches.
    create function identity.notify_token_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('quarry_identity_tokens', old.id::text);
      return null;
    end
    $$;
    create trigger personal_access_tokens_changed
      after update of revoked_at, expires_at, token_hash, org_id, user_id or delete
      on identity.personal_access_tokens
      for each row execute function identity.notify_token_changed();
  `.execute(db);
}
