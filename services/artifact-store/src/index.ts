// @quarry/artifact-store: research artifacts, research outputs, subagent reports and extraction
// results over gRPC (quarry.artifact.v1.ArtifactService), each text-bearing write with its
// content.created event in the same transaction, each deletion with its content.deleted events.
export { artifactSchemas } from './migrations/index.js';
export { createArtifactService, type ArtifactServiceDeps } from './service.js';
export { startArtifactStore, type ArtifactStore } from './runtime.js';
export { importUrlFields, storageQuotaFields, urlImportOptionsFrom, type UrlImportOptions } from './config.js';
export { createPlanReferencesClient, type PlanReferences } from './plans.js';
export { MAX_TEXT_BYTES } from './core/bodies.js';
export type { ArtifactDatabase } from './store/schema.js';
export { indexableSources, countIndexableSources, type IndexableSourcesPage } from './store/indexable-sources.js';
export { backfillInstructionFlags, orgsToBackfill, type FlagBackfill } from './store/instruction-flag-backfill.js';
