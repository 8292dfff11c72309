// The tools the views call through the host. Their names come from the generated catalogue
// (`toolNames`): esbuild puts them in for QUARRY_VIEW_TOOLS when it bundles a view
// (../view-bundle.ts), so the browser code names no tool and carries nothing of @quarry/contracts.
export interface ViewTools {
  getPlanStatus: string;
  getResearchContext: string;
  listResearchOutputs: string;
}

declare const QUARRY_VIEW_TOOLS: ViewTools;

export const VIEW_TOOLS: ViewTools = QUARRY_VIEW_TOOLS;
