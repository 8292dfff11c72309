// @quarry/views: the plan view and the search-results view, pure and browser-safe (no node, no
// DOM, no I/O): plain data models in, escaped HTML strings out. The gateway renders them on the
// server for /app pages; the same code is bundled into the MCP Apps ui:// views and the app's
// assets for live re-rendering (docs/adr/0049-views-inside-the-chat.md).
export {
  planViewFrom,
  type OutputEntry,
  type PlanSources,
  type PlanStatusResult,
  type PlanView,
  type PlanViewItem,
  type PlanViewReview,
  type PlanViewStep,
  type ResearchContextResult,
  type StatusStep,
  type ViewLinks,
} from './plan-model.js';
export { renderPlanView } from './plan-view.js';
export {
  searchViewFrom,
  type SearchHit,
  type SearchLegs,
  type SearchResult,
  type SearchSourcesResult,
  type SearchView,
} from './search-model.js';
export { renderSearchView } from './search-view.js';
export { safeHref, text as escapeHtml } from './html.js';
export { VIEWS_CSS } from './views-css.js';
