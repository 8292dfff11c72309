import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// Instruction flags (docs/adr/0062-instruction-flags.md): what the scanner found in an
// artifact's text that reads as instructions to a model, as a JSON array of {kind, start?, end?,
// excerpt}, written with the row. Null means "not scanned yet" (rows stored before this
// migration, until `quarry flags backfill` scans them); an empty array means nothing was found.
// A partial index finds the rows still to scan.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table artifact.research_artifacts
      add column instruction_flags jsonb
        check (instruction_flags is null or jsonb_typeof(instruction_flags) = 'array')
  `.execute(db);
  await sql`
    create index research_artifacts_unscanned_idx
      on artifact.research_artifacts (org_id, id) where instruction_flags is null
  `.execute(db);
}
