import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// Outbox compaction (docs/adr/0039-outbox-retention-reindex-and-import.md): rows every consumer
// has passed ((tx, id) at or below the smallest stored position, the order consumers read in since
// docs/adr/0038-ingest-without-a-global-outbox-lock.md) and older than a retention are deleted, a
// bounded batch per call, oldest first. With no consumer offset stored at all nothing is
// consumed yet, so nothing goes. The function runs as the owner, which FORCE row level security
// binds too; it deletes each org's rows under that org's own tenant policy (app.org_id set per
// org, then restored), so no policy that ignores the tenant is needed.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function events.compact_outbox(older_than interval, max_rows integer)
      returns integer
      language plpgsql volatile security definer
      set search_path = pg_catalog, events
      as $$
      declare
        horizon_tx xid8;
        horizon bigint;
        cutoff timestamptz := now() - older_than;
        previous text := current_setting('app.org_id', true);
        doomed bigint[];
        tenant uuid;
        removed integer := 0;
        n integer;
      begin
        select c.position_tx, c.position into horizon_tx, horizon
          from events.consumer_offsets c order by c.position_tx, c.position limit 1;
        if horizon is null then
          return 0;
        end if;
        select array_agg(d.id) into doomed from (
          select o.id from events.outbox o
          where (o.tx, o.id) <= (horizon_tx, horizon) and o.created_at < cutoff
          order by o.tx, o.id
          limit least(greatest(max_rows, 1), 10000)
        ) d;
        if doomed is null then
          return 0;
        end if;
        for tenant in select distinct o.org_id from events.outbox o where o.id = any(doomed) loop
          perform set_config('app.org_id', tenant::text, true);
          delete from events.outbox o where o.id = any(doomed) and o.org_id = tenant;
          get diagnostics n = row_count;
          removed := removed + n;
        end loop;
        perform set_config('app.org_id', coalesce(previous, ''), true);
        return removed;
      end
      $$;
    revoke all on function events.compact_outbox(interval, integer) from public;
    grant execute on function events.compact_outbox(interval, integer) to quarry_event_consumer;
  `.execute(db);
}
