import type { identityV1 } from '@quarry/contracts';
import type { BackendCall } from '../mcp/tools/backends.js';

/**
 * The identity rpcs, served in-process by the gateway because identity is its own data.
 * Its ping proves the whole chain (auth → catalogue → codec → handler → structured result).
 */
export const identityServiceImplementation = {
  async ping(_request: identityV1.PingRequest, { principal }: BackendCall): Promise<identityV1.PingResponse> {
    return {
      message: `Connected to Quarry as ${principal.name} (${principal.email}).`,
      orgSlug: principal.orgSlug,
      userEmail: principal.email,
      userName: principal.name,
    };
  },
};
