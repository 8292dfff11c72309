import { randomUUID } from 'node:crypto';
import { planV1 } from '@quarry/contracts';
import { IdentityAdminError } from '../../identity/admin.js';
import { isAdmin, type Member, requireAdmin } from '../../identity/member.js';
import type { BackendCall, ToolBackend } from '../../mcp/tools/backends.js';

const service = planV1.PlanServiceService;

export type MediaType = 'conversation' | 'markdown' | 'html' | 'word' | 'excel' | 'powerpoint';
export type Depth = 'scan' | 'standard' | 'deep';
export const MEDIA_TYPES: readonly MediaType[] = ['conversation', 'markdown', 'html', 'word', 'excel', 'powerpoint'];
export const DEPTHS: readonly Depth[] = ['scan', 'standard', 'deep'];

export interface OrgPreferences {
  mediaType: MediaType;
  instructions: string | null;
  depth: Depth | null;
  updatedAt: Date | null;
}

export interface OrgPreferencesChange {
  mediaType?: string;
  /** An empty string clears them. */
  instructions?: string;
  depth?: string;
}

const enumName = (prefix: string, value: number, names: Record<number, string>) =>
  names[value]?.slice(prefix.length).toLowerCase();

function fromProto(p: planV1.OrgOutputPreferences | undefined): OrgPreferences {
  return {
    mediaType: (enumName('OUTPUT_MEDIA_TYPE_', p?.outputMediaType ?? 1, planV1.OutputMediaType) ??
      'conversation') as MediaType,
    instructions: p?.outputFormattingInstructions ?? null,
    depth: p?.defaultDepth ? (enumName('RESEARCH_DEPTH_', p.defaultDepth, planV1.ResearchDepth) as Depth) : null,
    updatedAt: p?.updatedAt ?? null,
  };
}

/**
 * The organization's output preferences and default depth, kept by the plan engine (the row
 * toolNames.getResearchContext reads) and reached through its internal rpcs, as the member: every member
 * reads them, only admins change them.
 */
export interface OrgPreferencesService {
  get(member: Member, sessionId: string): Promise<OrgPreferences>;
  set(member: Member, sessionId: string, change: OrgPreferencesChange): Promise<OrgPreferences>;
}

export function createOrgPreferences(plan: ToolBackend, deadlineMs: number): OrgPreferencesService {
  const callOf = (member: Member, sessionId: string): BackendCall => ({
    identity: { kind: 'user', orgId: member.orgId, userId: member.userId, tokenId: sessionId, requestId: randomUUID() },
    principal: {
      tokenId: sessionId,
      orgId: member.orgId,
      orgSlug: member.orgSlug,
      userId: member.userId,
      email: member.email,
      name: member.name,
      expiresAt: null,
      scopes: isAdmin(member) ? ['quarry:read', 'quarry:write', 'quarry:admin'] : ['quarry:read'],
      tools: null,
    },
    deadlineMs,
  });
  return {
    async get(member, sessionId) {
      const method = service.getOrgOutputPreferences;
      const bytes = await plan.unary(method.path, method.requestSerialize({}), callOf(member, sessionId));
      return fromProto(method.responseDeserialize(Buffer.from(bytes)).preferences);
    },
    async set(member, sessionId, change) {
      requireAdmin(member);
      const unknown = (given: string | undefined, names: readonly string[]) => given && !names.includes(given);
      if (unknown(change.mediaType, MEDIA_TYPES) || unknown(change.depth, DEPTHS))
        throw new IdentityAdminError('INVALID_ARGUMENT', 'Choose a media type and a depth from the lists.');
      const method = service.setOrgOutputPreferences;
      const mediaType = MEDIA_TYPES.find((m) => m === change.mediaType);
      const depth = DEPTHS.find((d) => d === change.depth);
      const request = planV1.SetOrgOutputPreferencesRequest.fromPartial({
        outputMediaType: mediaType
          ? planV1.OutputMediaType[`OUTPUT_MEDIA_TYPE_${mediaType.toUpperCase()}` as 'OUTPUT_MEDIA_TYPE_WORD']
          : 0,
        outputFormattingInstructions: change.instructions,
        defaultDepth: depth
          ? planV1.ResearchDepth[`RESEARCH_DEPTH_${depth.toUpperCase()}` as 'RESEARCH_DEPTH_DEEP']
          : 0,
      });
      const bytes = await plan.unary(method.path, method.requestSerialize(request), callOf(member, sessionId));
      return fromProto(method.responseDeserialize(Buffer.from(bytes)).preferences);
    },
  };
}
