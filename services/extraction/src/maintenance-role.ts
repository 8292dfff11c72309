import type { AnyDb } from '@quarry/db';
import { sql } from 'kysely';

/** The nologin role whose members may call extraction.maintain (the migration creates it). */
const EXTRACTION_MAINTENANCE_ROLE = 'quarry_extraction_maintenance';

/**
 * Let `role` (the role the extraction service connects as) run its upkeep, extraction.maintain:
 * the one cross-tenant path of the extraction schema, which deletes expired submissions and jobs
 * and hands over jobs whose instance stopped. Run as the admin after migrating; idempotent.
 * Without it every sweep fails (logged): expired rows stay, unreadable, and a job whose instance
 * stopped is not resumed.
 */
export async function grantExtractionMaintenance(adminDb: AnyDb, role: string): Promise<void> {
  await sql`grant ${sql.id(EXTRACTION_MAINTENANCE_ROLE)} to ${sql.id(role)}`.execute(adminDb);
}
