import type { CallMode, CallModeDeps } from './call-mode.js';

/** The call as it is: one rpc, its result. Applies to every call no other mode takes. */
export function plainMode({ tools }: CallModeDeps): CallMode {
  return {
    name: 'plain',
    appliesTo: () => true,
    async run({ tool, args, caller }) {
      const outcome = await tools.call(tool.name, args, caller);
      // Without sampling on offer a service never gets to ask for it (the call answers INTERNAL).
      return { result: outcome.result! };
    },
  };
}
