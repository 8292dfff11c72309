import { enableTenantRls } from '@quarry/db';
import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// Calls per minute per org and tool class (docs/adr/0061-per-org-quotas.md).
//
// call_rates: the window counters of rate-limiter-flexible's PostgreSQL store, in the shape that
// library reads and writes (key, points, expire in epoch milliseconds); created here rather than
// by the library at start, so the app role needs no DDL. Every gateway replica counts in it, so
// an org's limit holds across replicas. A key is `<org id>:<tool class>`; it holds no content.
//
// org_call_quotas: the limits the operator set for an org (quarry quota set); a class without a
// row takes the gateway's default (QUOTA_CALLS_PER_MINUTE_*).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table gateway.call_rates (
      key varchar(255) primary key,
      points integer not null default 0,
      expire bigint
    );
    create table gateway.org_call_quotas (
      org_id uuid not null,
      tool_class text not null check (tool_class in ('read', 'write', 'search', 'model')),
      calls_per_minute integer not null check (calls_per_minute >= 0),
      updated_at timestamptz not null default now(),
      primary key (org_id, tool_class)
    );
  `.execute(db);
  await enableTenantRls(db, 'gateway.org_call_quotas');
}
