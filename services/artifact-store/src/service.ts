import type { artifactV1 } from '@quarry/contracts';
import { handlersWith } from '@quarry/grpc';
import { checkExtractionTarget } from './handlers/check-extraction-target.js';
import { deleteArtifact } from './handlers/delete-artifact.js';
import { deleteResearchOutput } from './handlers/delete-research-output.js';
import type { ArtifactServiceDeps } from './handlers/deps.js';
import { getArtifactText } from './handlers/get-artifact-text.js';
import { listPlanArtifacts } from './handlers/list-plan-artifacts.js';
import { purgePlanContent } from './handlers/purge-plan-content.js';
import { storeExtractionResult } from './handlers/store-extraction-result.js';
import { storeResearchOutput } from './handlers/store-research-output.js';
import { storeResearch } from './handlers/store-research.js';
import { submitSubagentReport } from './handlers/submit-subagent-report.js';

export type { ArtifactServiceDeps } from './handlers/deps.js';

/**
 * The ArtifactService rpcs, one handler each (handlers/). Every input is validated (core/) and
 * every plan/step reference resolved (one plan-engine call) before the transaction opens; the
 * row and, when it has text, its content.created event are then written in ONE transaction
 * under the caller's tenant (store/), so an event exists exactly when its row does. A deletion
 * removes the rows and appends their content.deleted events in one transaction the same way.
 */
export function createArtifactService(deps: ArtifactServiceDeps): artifactV1.ArtifactServiceServer {
  return handlersWith(deps, {
    storeResearch,
    storeResearchOutput,
    submitSubagentReport,
    listPlanArtifacts,
    getArtifactText,
    storeExtractionResult,
    checkExtractionTarget,
    deleteArtifact,
    deleteResearchOutput,
    purgePlanContent,
  });
}
