import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// Consumers read the outbox in transaction order instead of relying on a global lock that made
// every outbox-writing transaction commit in id order (see docs/adr/0038-ingest-without-a-global-outbox-lock.md).
// Each row records the id of the transaction that inserted it (`tx`, 64-bit, never wraps);
// a consumer's position is the pair (tx, id) of the last row it finished, and it reads only rows
// of transactions older than every transaction still in flight (pg_snapshot_xmin): those are
// final, so a row that commits later always sorts after the position and is never skipped.
//
// Rows written before this migration (and offsets stored before it) get tx 0: they were
// committed in id order under the old lock, so (0, id) keeps their order and puts them before
// every later row.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table events.outbox add column tx xid8 not null default '0';
    alter table events.outbox alter column tx set default pg_current_xact_id();
    create index outbox_tx_id on events.outbox (tx, id);

    alter table events.consumer_offsets add column position_tx xid8 not null default '0';

    -- The consumers' cross-tenant read path: rows after (after_tx, after_id) in (tx, id) order,
    -- only of transactions older than the oldest one still running, at most max_rows and about
    -- max_bytes of payload (always at least one row), so a batch of large texts stays bounded.
    create function events.read_outbox_committed(after_tx xid8, after_id bigint, max_rows integer, max_bytes bigint)
      returns setof events.outbox
      language sql stable security definer
      set search_path = pg_catalog, events
      as $$
        select r.id, r.event_id, r.org_id, r.topic, r.key, r.payload, r.headers, r.created_at, r.tx
        from (
          select o.*, sum(pg_column_size(o.payload)) over (order by o.tx, o.id) - pg_column_size(o.payload) as before_bytes
          from (
            select * from events.outbox
            where (tx, id) > (after_tx, after_id) and tx < pg_snapshot_xmin(pg_current_snapshot())
            order by tx, id
            limit least(greatest(max_rows, 1), 1000)
          ) o
        ) r
        where r.before_bytes = 0 or r.before_bytes < max_bytes
        order by r.tx, r.id
      $$;
    revoke all on function events.read_outbox_committed(xid8, bigint, integer, bigint) from public;

    -- Whether committed rows after the position wait behind an older transaction still
    -- running: the consumer then looks again shortly (that transaction may send no notification).
    create function events.outbox_held(after_tx xid8, after_id bigint)
      returns boolean
      language sql stable security definer
      set search_path = pg_catalog, events
      as $$
        select exists (
          select 1 from events.outbox
          where (tx, id) > (after_tx, after_id) and tx >= pg_snapshot_xmin(pg_current_snapshot())
        )
      $$;
    revoke all on function events.outbox_held(xid8, bigint) from public;

    -- Id order is no longer commit order: the old path could skip a row, so it goes.
    drop function events.read_outbox(bigint, integer);
    comment on policy outbox_owner_read on events.outbox is
      'quarry:tenant-exempt: consumers read all tenants in order only through the security definer functions events.read_outbox_committed and events.outbox_held, which run as this owner';

    create or replace function events.consumer_lag(consumer_name text)
      returns table (pending bigint, oldest_pending_at timestamptz)
      language sql stable security definer
      set search_path = pg_catalog, events
      as $$
        with c as (select position_tx, position from events.consumer_offsets where consumer = consumer_name),
          pos as (select coalesce((select position_tx from c), '0'::xid8) as tx, coalesce((select position from c), 0) as id)
        select count(*), min(o.created_at) from events.outbox o, pos where (o.tx, o.id) > (pos.tx, pos.id)
      $$;

    grant execute on function events.read_outbox_committed(xid8, bigint, integer, bigint) to quarry_event_consumer;
    grant execute on function events.outbox_held(xid8, bigint) to quarry_event_consumer;
  `.execute(db);
}
