import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// Invitations to an organization: an admin invites an email with a role; the invitee opens a
// one-time link and becomes a member by setting a password. Only the SHA-256 of the link's token
// is stored; a link works once (accepted_at), until it expires or is revoked. Rows are kept as
// the record of who invited whom.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table identity.invitations (
      id uuid primary key default gen_random_uuid(),
      org_id uuid not null references identity.organizations (id) on delete cascade,
      email text not null check (email = lower(email) and email ~ '^[^@[:space:]]+@[^@[:space:]]+$'),
      role text not null check (role in ('admin', 'member')),
      token_hash bytea not null unique check (octet_length(token_hash) = 32),
      invited_by uuid references identity.users (id) on delete set null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      accepted_at timestamptz,
      accepted_by uuid references identity.users (id) on delete set null,
      revoked_at timestamptz
    );
    create index invitations_org_idx on identity.invitations (org_id, created_at desc);

    alter table identity.invitations enable row level security;
    alter table identity.invitations force row level security;
    create policy tenant_isolation on identity.invitations
      using (org_id = nullif(current_setting('app.org_id', true), '')::uuid)
      with check (org_id = nullif(current_setting('app.org_id', true), '')::uuid);
    -- The invitee is no member yet: whoever holds the link may read exactly its invitation.
    create policy invitation_lookup on identity.invitations for select
      using (token_hash = decode(nullif(current_setting('app.invitation_hash', true), ''), 'hex'));
    comment on policy invitation_lookup on identity.invitations is
      'quarry:tenant-exempt: the invitee, not yet a member, reads the one invitation whose link token they hold';
  `.execute(db);
}
