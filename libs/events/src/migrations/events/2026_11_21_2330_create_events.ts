import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// The outbox is the embedded event log: producers insert rows in their own transaction (only
// for their tenant), consumers read every tenant's rows in id order through one explicit,
// narrow path (events.read_outbox, see docs/adr/0008-event-log.md), and remember how far they
// got in consumer_offsets. Dead letters keep the failed event and why.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table events.outbox (
      id bigint generated always as identity primary key,
      event_id uuid not null unique,
      org_id uuid not null,
      topic text not null check (length(topic) between 1 and 200),
      key text not null check (length(key) between 1 and 200),
      payload jsonb not null check (jsonb_typeof(payload) = 'object'),
      headers jsonb not null default '{}' check (jsonb_typeof(headers) = 'object'),
      created_at timestamptz not null default now()
    );

    alter table events.outbox enable row level security;
    alter table events.outbox force row level security;
    create policy tenant_isolation on events.outbox
      using (org_id = nullif(current_setting('app.org_id', true), '')::uuid)
      with check (org_id = nullif(current_setting('app.org_id', true), '')::uuid);
    -- FORCE binds the owner too; read_outbox runs as the owner, so the owner (never the app
    -- role, which assertTenantSafety keeps out of owner roles) may read every row.
    create policy outbox_owner_read on events.outbox for select to current_user using (true);
    comment on policy outbox_owner_read on events.outbox is
      'quarry:tenant-exempt: consumers read all tenants in order only through the security definer function events.read_outbox, which runs as this owner';

    -- Wake consumers at commit time (NOTIFY is delivered on commit, never for a rollback).
    -- One notification per statement is enough: consumers read everything after their offset.
    create function events.notify_outbox() returns trigger language plpgsql as $$
    begin
      perform pg_notify('quarry_outbox', '');
      return null;
    end
    $$;
    create trigger outbox_notify after insert on events.outbox
      for each statement execute function events.notify_outbox();

    -- How far each consumer has processed (the last outbox id its handler finished).
    create table events.consumer_offsets (
      consumer text primary key check (length(consumer) between 1 and 200),
      position bigint not null check (position >= 0),
      updated_at timestamptz not null default now()
    );

    create table events.dead_letters (
      id bigint generated always as identity primary key,
      consumer text not null,
      outbox_id bigint not null,
      event_id uuid not null,
      org_id uuid not null,
      topic text not null,
      key text not null,
      payload jsonb not null,
      headers jsonb not null,
      attempts integer not null check (attempts >= 1),
      error text not null,
      failed_at timestamptz not null default now(),
      unique (consumer, outbox_id)
    );
    alter table events.dead_letters enable row level security;
    alter table events.dead_letters force row level security;
    create policy tenant_isolation on events.dead_letters
      using (org_id = nullif(current_setting('app.org_id', true), '')::uuid)
      with check (org_id = nullif(current_setting('app.org_id', true), '')::uuid);

    -- The consumers' cross-tenant read path: only rows after an offset, in order, bounded.
    create function events.read_outbox(after_id bigint, max_rows integer)
      returns setof events.outbox
      language sql stable security definer
      set search_path = pg_catalog, events
      as $$
        select * from events.outbox where id > after_id order by id limit least(greatest(max_rows, 1), 1000)
      $$;
    revoke all on function events.read_outbox(bigint, integer) from public;

    -- Lag of one consumer (for the indexer's metric): events after its offset, and the oldest.
    create function events.consumer_lag(consumer_name text)
      returns table (pending bigint, oldest_pending_at timestamptz)
      language sql stable security definer
      set search_path = pg_catalog, events
      as $$
        select count(*), min(o.created_at) from events.outbox o
        where o.id > coalesce((select c.position from events.consumer_offsets c where c.consumer = consumer_name), 0)
      $$;
    revoke all on function events.consumer_lag(text) from public;

    do $$
    begin
      if not exists (select 1 from pg_roles where rolname = 'quarry_event_consumer') then
        create role quarry_event_consumer nologin;
      end if;
    exception when duplicate_object or unique_violation then null;
    end
    $$;
    grant usage on schema events to quarry_event_consumer;
    grant execute on function events.read_outbox(bigint, integer) to quarry_event_consumer;
    grant execute on function events.consumer_lag(text) to quarry_event_consumer;
  `.execute(db);
}
