import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// The audit log of sign-ins, consents and token issuance is a record, like the plan audit log
// and the tool-call log: once written it is never changed, and failed sign-ins counted from it
// (the sign-in rate limit) cannot be wiped by the role that writes them. Statement-level
// triggers refuse UPDATE, DELETE and TRUNCATE for every role (the app role's table grants are
// re-applied on every start, so a REVOKE would not last); only the schema owner, who may
// disable the triggers, could purge it, as a deliberate retention operation.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function identity.refuse_auth_events_change() returns trigger language plpgsql as $$
    begin
      raise exception 'identity.auth_events is insert-only: % is not allowed', tg_op
        using errcode = 'restrict_violation';
    end
    $$;
    create trigger auth_events_insert_only
      before update or delete on identity.auth_events
      for each statement execute function identity.refuse_auth_events_change();
    create trigger auth_events_no_truncate
      before truncate on identity.auth_events
      for each statement execute function identity.refuse_auth_events_change();
  `.execute(db);
}
