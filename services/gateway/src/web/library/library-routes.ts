import type { FastifyInstance } from 'fastify';
import type { WebShell } from '../shell/web-shell.js';
import { registerArtifactPage } from './artifact-page.js';
import { registerEntityPage } from './entity-page.js';
import { registerArtifactsList } from './artifacts-list.js';
import { registerExtractionPage } from './extraction-page.js';
import { registerOutputPage } from './output-page.js';
import { registerPlanActions } from './plan-actions.js';
import { registerPlanPage } from './plan-page.js';
import { registerPlansList } from './plans-list.js';
import { registerReviews } from './reviews.js';
import { registerSearchPage } from './search-page.js';

/** The library's pages: plans, a plan and its actions, artifacts (listed and one by one), deliverables, extractions, entities, search, reviews. */
export function registerLibrary(scope: FastifyInstance, shell: WebShell): void {
  registerPlansList(scope, shell);
  registerPlanPage(scope, shell);
  registerPlanActions(scope, shell);
  registerArtifactsList(scope, shell);
  registerArtifactPage(scope, shell);
  registerOutputPage(scope, shell);
  registerExtractionPage(scope, shell);
  registerEntityPage(scope, shell);
  registerSearchPage(scope, shell);
  registerReviews(scope, shell);
}
