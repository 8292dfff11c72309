import type { artifactV1 } from '@quarry/contracts';
import { handlersWith } from '@quarry/grpc';
import { checkExtractionTarget } from './handlers/check-extraction-target.js';
import { deleteArtifact } from './handlers/delete-artifact.js';
import { deleteResearchOutput } from './handlers/delete-research-output.js';
import { existingSources } from './handlers/existing-sources.js';
import { type ArtifactServiceDeps, storageQuotasOf } from './handlers/deps.js';
import { fetch } from './handlers/fetch.js';
import { getArtifactText } from './handlers/get-artifact-text.js';
import { getArtifact } from './handlers/get-artifact.js';
import { getEntityGraph } from './handlers/get-entity-graph.js';
import { getExtraction } from './handlers/get-extraction.js';
import { getResearchOutput } from './handlers/get-research-output.js';
import { importDocument } from './handlers/import-document.js';
import { importUrl } from './handlers/import-url.js';
import { listArtifacts } from './handlers/list-artifacts.js';
import { listPlanArtifacts } from './handlers/list-plan-artifacts.js';
import { listResearchOutputs } from './handlers/list-research-outputs.js';
import { purgePlanContent } from './handlers/purge-plan-content.js';
import { listTags } from './handlers/list-tags.js';
import { storeExtractionResult } from './handlers/store-extraction-result.js';
import { storeResearchOutput } from './handlers/store-research-output.js';
import { storeResearchBatch } from './handlers/store-research-batch.js';
import { storeResearch } from './handlers/store-research.js';
import { submitSubagentReport } from './handlers/submit-subagent-report.js';
import { updateArtifactTags } from './handlers/update-artifact-tags.js';
import { upsertEntities } from './handlers/upsert-entities.js';
import { createArtifactWriter } from './store/group-commit.js';
import { URL_FETCH_DEFAULTS } from './web/fetch-url.js';

export type { ArtifactServiceDeps } from './handlers/deps.js';

/**
 * The ArtifactService rpcs, one handler each (handlers/). Every input is validated (core/) and
 * every plan/step reference resolved (one plan-engine call) before the transaction opens; the
 * row and, when it has text, its content.created event are then written in ONE transaction
 * under the caller's tenant (store/), so an event exists exactly when its row does. A deletion
 * removes the rows and appends their content.deleted events in one transaction the same way.
 * Reads page long text within a byte budget (handlers/text-pages.ts).
 */
export function createArtifactService(deps: ArtifactServiceDeps): artifactV1.ArtifactServiceServer {
  return handlersWith(
    {
      ...deps,
      artifactWrites: createArtifactWriter(deps.db, storageQuotasOf(deps)),
      urlImports: { ...URL_FETCH_DEFAULTS, ...deps.urlImports },
    },
    {
      storeResearch,
      storeResearchBatch,
      importDocument,
      importUrl,
      storeResearchOutput,
      submitSubagentReport,
      getArtifact,
      getResearchOutput,
      getExtraction,
      fetch,
      listArtifacts,
      listResearchOutputs,
      listTags,
      updateArtifactTags,
      listPlanArtifacts,
      getArtifactText,
      storeExtractionResult,
      checkExtractionTarget,
      deleteArtifact,
      deleteResearchOutput,
      purgePlanContent,
      existingSources,
      upsertEntities,
      getEntityGraph,
    },
  );
}
