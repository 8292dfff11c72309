import { artifactV1, ContractError, createToolCodec, toolCatalogue, type ToolCodec } from '@quarry/contracts';
import { artifactErrors } from '../errors.js';

/**
 * store_research_batch's items arrive as free-form objects (so one bad item cannot refuse the
 * whole call at the gateway); each is checked here exactly as a store_research call's arguments
 * are, against store_research's own input schema, and becomes its request through ts-proto's
 * `fromJSON`: one generated protobuf API per item, no encoding to bytes and back.
 */

let codec: ToolCodec | undefined;
function storeResearchCodec(): ToolCodec {
  if (!codec) {
    const tool = toolCatalogue.find((t) => t.name === 'store_research');
    if (!tool) throw new Error('store_research is not in the tool catalogue');
    codec = createToolCodec(tool);
  }
  return codec;
}

/** One item as a StoreResearchRequest; INVALID_ARGUMENT naming every bad field (as `artifacts[i].field`). */
export function batchItem(item: unknown, index: number): artifactV1.StoreResearchRequest {
  try {
    return artifactV1.StoreResearchRequest.fromJSON(storeResearchCodec().requestJson(item));
  } catch (error) {
    if (!(error instanceof ContractError)) throw error;
    const rule = error.issues.map((i) => `${i.path || 'the item'} ${i.problem}`).join('; ');
    throw artifactErrors.INVALID_ARGUMENT({
      field: `artifacts[${index}]`,
      rule: `is not valid store_research arguments: ${rule}`,
    });
  }
}
