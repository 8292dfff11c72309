import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// Consumers read rows of transactions older than every transaction still in flight. Transaction
// ids are cluster-wide, so pg_snapshot_xmin also counted transactions of *other databases* on the
// same server: one left open there held every org's events for as long as it ran. The horizon
// now ignores in-flight transactions that pg_stat_activity places in another database (a backend
// never changes database, so such a transaction can never write this outbox). Anything it cannot
// place (a prepared transaction, a backend whose details the owner may not read) still holds the
// horizon, as before: the read stays safe and never skips a row.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function events.outbox_horizon()
      returns xid8
      language sql stable security definer
      set search_path = pg_catalog
      as $$
        with snap as (select pg_current_snapshot() as s),
          elsewhere as (
            select a.backend_xid from pg_stat_activity a
            where a.backend_xid is not null
              and a.datid is distinct from (select d.oid from pg_database d where d.datname = current_database())
          )
        select coalesce(
          (select min(x) from snap, pg_snapshot_xip(snap.s) x
            where not exists (select 1 from elsewhere e where e.backend_xid = x::xid)),
          (select pg_snapshot_xmax(snap.s) from snap))
      $$;
    revoke all on function events.outbox_horizon() from public;

    create or replace function events.read_outbox_committed(after_tx xid8, after_id bigint, max_rows integer, max_bytes bigint)
      returns setof events.outbox
      language sql stable security definer
      set search_path = pg_catalog, events
      as $$
        select r.id, r.event_id, r.org_id, r.topic, r.key, r.payload, r.headers, r.created_at, r.tx
        from (
          select o.*, sum(pg_column_size(o.payload)) over (order by o.tx, o.id) - pg_column_size(o.payload) as before_bytes
          from (
            select * from events.outbox
            where (tx, id) > (after_tx, after_id) and tx < events.outbox_horizon()
            order by tx, id
            limit least(greatest(max_rows, 1), 1000)
          ) o
        ) r
        where r.before_bytes = 0 or r.before_bytes < max_bytes
        order by r.tx, r.id
      $$;

    create or replace function events.outbox_held(after_tx xid8, after_id bigint)
      returns boolean
      language sql stable security definer
      set search_path = pg_catalog, events
      as $$
        select exists (
          select 1 from events.outbox
          where (tx, id) > (after_tx, after_id) and tx >= events.outbox_horizon()
        )
      $$;

    grant execute on function events.outbox_horizon() to quarry_event_consumer;
  `.execute(db);
}
