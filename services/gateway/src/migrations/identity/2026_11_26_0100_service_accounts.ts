import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// Service accounts: programs of one org that call the gRPC services directly. Each is an OAuth
// client of the embedded authorization server with the client_credentials grant only; its
// access tokens carry the org and the account's scopes and are verified by every service.
// Only the SHA-256 of the secret is stored. A revoked account is kept (the audit log names it)
// and can no longer get a token; rows are never deleted.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table identity.service_accounts (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null references identity.organizations (id) on delete cascade,
      name text not null check (name ~ '^[a-z0-9][a-z0-9._-]{0,62}$'),
      client_id text not null unique check (client_id like 'qsa_%'),
      secret_hash bytea not null check (length(secret_hash) = 32),
      secret_hint text not null,
      scopes text[] not null
        check (cardinality(scopes) > 0 and scopes <@ array['quarry:read', 'quarry:write', 'quarry:admin']),
      created_at timestamptz not null default now(),
      secret_rotated_at timestamptz,
      revoked_at timestamptz
    );
    create unique index service_accounts_active_name_idx on identity.service_accounts (org_id, name)
      where revoked_at is null;
    alter table identity.service_accounts enable row level security;
    alter table identity.service_accounts force row level security;
    create policy tenant_isolation on identity.service_accounts
      using (org_id = nullif(current_setting('app.org_id', true), '')::uuid)
      with check (org_id = nullif(current_setting('app.org_id', true), '')::uuid);
    create policy client_lookup on identity.service_accounts for select
      using (client_id = nullif(current_setting('app.client_id', true), ''));
    comment on policy client_lookup on identity.service_accounts is
      'quarry:tenant-exempt: the authorization server reads the one client authenticating at its token endpoint, to learn its org';

    -- Revocation is an update; the app role's grants are re-applied on every start, so a
    -- REVOKE DELETE would not last: a trigger keeps the rows.
    create function identity.refuse_service_account_delete() returns trigger language plpgsql as $$
    begin
      raise exception 'identity.service_accounts rows are revoked, never deleted'
        using errcode = 'restrict_violation';
    end
    $$;
    create trigger service_accounts_no_delete
      before delete on identity.service_accounts
      for each row execute function identity.refuse_service_account_delete();
  `.execute(db);
}
