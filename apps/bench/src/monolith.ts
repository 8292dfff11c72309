import { planV1 } from '@quarry/contracts';
import { createLocalBackend, type ToolBackend } from '@quarry/gateway';
import { type CallContext, Metadata, unaryHandlerOf } from '@quarry/grpc';
import { createPlanService, type PlanServiceDeps } from '@quarry/plan-engine';

type BackendCall = Parameters<ToolBackend['unary']>[2];

/**
 * The monolith baseline's PlanService: the plan engine's own handlers (same code, same SQL)
 * called in-process by the gateway, with the CallContext a gRPC server would have built.
 * It is what a single-process MCP server looks like; the gap to Quarry is the gRPC hop.
 */
export function inProcessPlanBackend(deps: PlanServiceDeps): ToolBackend {
  const service = createPlanService(deps) as Record<string, unknown>;
  const implementation = Object.fromEntries(
    Object.entries(planV1.PlanServiceService).map(([name, method]) => {
      const handler = unaryHandlerOf(service[name]);
      if (!handler) throw new Error(`PlanService.${name} is not a unary() handler`);
      const serve = (request: never, call: BackendCall) => {
        const timeout = AbortSignal.timeout(call.deadlineMs);
        const ctx: CallContext = {
          identity: call.identity,
          deadline: new Date(Date.now() + call.deadlineMs),
          signal: call.signal ? AbortSignal.any([call.signal, timeout]) : timeout,
          metadata: new Metadata(),
          method: method.path,
        };
        return handler(request, ctx);
      };
      return [name, serve];
    }),
  );
  return createLocalBackend(planV1.PlanServiceService, implementation);
}
