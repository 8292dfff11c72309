import { describe, expect, it } from '@jest/globals';
import { allows, parseScopes, scopeForRpc, toolCatalogue } from '../src/index.js';

// The scope model shared by the gateway (per tool) and the services (per rpc, for service accounts).

describe('scopeForRpc', () => {
  it("asks for the same scope as the rpc's tool: read for read-only tools, write for the others", () => {
    expect(scopeForRpc('/quarry.plan.v1.PlanService/GetPlanStatus')).toBe('quarry:read');
    expect(scopeForRpc('/quarry.plan.v1.PlanService/CreateResearchPlan')).toBe('quarry:write');
    expect(scopeForRpc('/quarry.search.v1.SearchService/SearchSources')).toBe('quarry:read');
    for (const tool of toolCatalogue) {
      expect(scopeForRpc(tool.rpc.path)).toBe(tool.annotations.readOnlyHint ? 'quarry:read' : 'quarry:write');
    }
  });

  it('knows no scope for an rpc that is no tool (internal to the services)', () => {
    expect(scopeForRpc('/quarry.plan.v1.PlanService/ResolvePlanReference')).toBeUndefined();
    expect(scopeForRpc('/quarry.artifact.v1.ArtifactService/PurgePlanContent')).toBeUndefined();
  });

  it('lets admin stand for read and write, and parses lists with either separator', () => {
    expect(allows(['quarry:admin'], 'quarry:write')).toBe(true);
    expect(allows(['quarry:read'], 'quarry:write')).toBe(false);
    expect(parseScopes('quarry:read, quarry:write quarry:read')).toEqual(['quarry:read', 'quarry:write']);
    expect(() => parseScopes('quarry:root')).toThrow('Unknown scope "quarry:root"');
  });
});
