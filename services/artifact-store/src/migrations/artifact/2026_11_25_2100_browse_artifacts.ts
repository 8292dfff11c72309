import { type Kysely, sql } from 'kysely';

// Frozen: never edit an applied migration; add a new one.
//
// Browsing the library: list_artifacts reads an org's artifacts most recent first (keyset on
// created_at, id), and filters by tags (array containment, which a GIN index serves). The table
// keeps its row-level security; the app role already may update it (update_artifact_tags).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index research_artifacts_recent_idx on artifact.research_artifacts (org_id, created_at desc, id desc);
    create index research_artifacts_tags_idx on artifact.research_artifacts using gin (tags);
  `.execute(db);
}
