import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { PlanReferences } from '../plans.js';
import type { ArtifactDatabase } from '../store/schema.js';

/** What every ArtifactService handler may use. */
export interface ArtifactServiceDeps {
  db: Kysely<ArtifactDatabase>;
  plans: PlanReferences;
  logger: Logger;
}
