import type { Migration } from 'kysely';
import * as createArtifact from './artifact/2026_11_21_2340_create_artifact.js';
import * as createExtractionResults from './artifact/2026_11_22_0200_create_extraction_results.js';
import * as browseArtifacts from './artifact/2026_11_25_2100_browse_artifacts.js';
import * as extractionIdempotency from './artifact/2026_11_25_2100_extraction_results_idempotency.js';
import * as announcePlanDeliverables from './artifact/2026_11_26_0100_announce_plan_deliverables.js';
import * as idempotentWrites from './artifact/2026_11_28_1540_idempotent_writes.js';
import * as sourceDocuments from './artifact/2026_11_28_1610_source_documents.js';
import * as documentFetches from './artifact/2026_11_28_2110_document_fetches.js';
import * as documentFigures from './artifact/2026_11_28_2100_document_figures.js';
import * as entityGraph from './artifact/2026_11_28_2120_entity_graph.js';
import * as storageQuotas from './artifact/2026_11_28_2140_storage_quotas.js';
import * as instructionFlags from './artifact/2026_11_28_2150_instruction_flags.js';

/**
 * The artifact store owns the `artifact` schema: research artifacts (including subagent
 * reports and source documents, whose original files are in `documents`, their figures in
 * `document_figures`), research outputs, extraction results and the entity graph. Its content events go to the `events`
 * schema's outbox (`eventsSchemas` from @quarry/events), which must be migrated too.
 */
export const artifactSchemas: ReadonlyArray<{ schema: string; migrations: Record<string, Migration> }> = [
  {
    schema: 'artifact',
    migrations: {
      '2026_11_21_2340_create_artifact': createArtifact,
      '2026_11_22_0200_create_extraction_results': createExtractionResults,
      '2026_11_25_2100_browse_artifacts': browseArtifacts,
      '2026_11_25_2100_extraction_results_idempotency': extractionIdempotency,
      '2026_11_26_0100_announce_plan_deliverables': announcePlanDeliverables,
      '2026_11_28_1540_idempotent_writes': idempotentWrites,
      '2026_11_28_1610_source_documents': sourceDocuments,
      '2026_11_28_2110_document_fetches': documentFetches,
      '2026_11_28_2100_document_figures': documentFigures,
      '2026_11_28_2120_entity_graph': entityGraph,
      '2026_11_28_2140_storage_quotas': storageQuotas,
      '2026_11_28_2150_instruction_flags': instructionFlags,
    },
  },
];
