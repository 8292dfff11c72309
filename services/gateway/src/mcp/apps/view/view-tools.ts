// Shared by the views' browser code and the gateway's tests (no DOM, no node): the tools the
// views call through the host. The gateway's tests hold these names against the catalogue.
export const VIEW_TOOLS = {
  getPlanStatus: 'get_plan_status',
  getResearchContext: 'get_research_context',
  listResearchOutputs: 'list_research_outputs',
} as const;
