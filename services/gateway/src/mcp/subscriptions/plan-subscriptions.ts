import { AsyncLocalStorage } from 'node:async_hooks';
import type {
  McpHandlerRequestOptions,
  McpHttpHandler,
  ServerCapabilities,
  ServerEvent,
  ServerEventBus,
} from '@modelcontextprotocol/server';
import { jsonRpcErrorBody, jsonRpcIdOf } from '../../errors.js';
import { callerOfRequest } from '../request-context.js';
import type { PlanChangeObserver } from './plan-change-feed.js';
import { type PlanUris, urisByPlan, urisChangedBy } from './plan-uris.js';

/**
 * What a 2026-07-28 server declares so that the SDK honours `resourceSubscriptions` in a
 * `subscriptions/listen` filter. Only the modern era gets it: a 2025-era client on this stateless
 * endpoint has no stream a notification could travel on (see `capabilitiesFor`).
 */
const SUBSCRIBE_CAPABILITY: ServerCapabilities = { resources: { subscribe: true } };

/** Who opened a listen stream and which plans it asked about: set around the SDK's handling of it. */
interface ListenScope {
  orgId: string;
  /** Lower-case plan id → the subscribed URIs about it, as the client wrote them. */
  uris: ReadonlyMap<string, PlanUris>;
  /** Ends the stream (the SDK tears it down when its request's signal aborts). */
  stop: AbortController;
}

interface Subscriber {
  scope: ListenScope;
  deliver: (event: ServerEvent) => void;
}

export interface PlanSubscriptions extends PlanChangeObserver {
  /** The bus to hand `createMcpHandler`: its listen streams subscribe here, each under its caller's org. */
  readonly bus: ServerEventBus;
  /** The handler, with each `subscriptions/listen` served inside its caller's scope (see `createPlanSubscriptions`). */
  serve(handler: McpHttpHandler): McpHttpHandler;
  /** The capabilities to add to a server instance of `era`. */
  capabilitiesFor(era: 'legacy' | 'modern'): ServerCapabilities | undefined;
  /** Listen streams open on this process. */
  openCount(): number;
  /**
   * Ends every open stream and refuses new ones: a listen stream never ends by itself, and a
   * server closing waits for its connections. Clients listen again, on another replica.
   */
  close(): void;
}

/**
 * Change notifications for plan resources, partitioned by org.
 *
 * The SDK's listen router keeps one filter per stream and asks a `ServerEventBus` for events, but
 * neither the router nor the bus knows who opened a stream: published as they are, a change to a
 * plan would reach every stream that names its URI, in any org. So each `subscriptions/listen`
 * request runs inside an AsyncLocalStorage scope holding the caller's org and the plans it named;
 * the router registers its stream with `bus.subscribe` while constructing the response, inside
 * that scope, and the bus files the stream under that org. A change `<org>:<plan>` from the feed
 * is delivered only to that org's streams that named that plan, with the URIs they named (a
 * deliverable stored or deleted concerns the report only). A stream registered outside any scope
 * hears nothing (fail closed).
 *
 * Another org's plan id is therefore acknowledged exactly like a missing one and never heard of.
 * Nothing here outlives a stream, and any replica can serve any stream: every replica hears the
 * whole feed from PostgreSQL.
 */
export function createPlanSubscriptions(options: { onerror?: (error: Error) => void } = {}): PlanSubscriptions {
  const listening = new AsyncLocalStorage<ListenScope>();
  const byOrg = new Map<string, Set<Subscriber>>();
  let open = 0;
  let closed = false;
  const report = (error: unknown) => options.onerror?.(error instanceof Error ? error : new Error(String(error)));

  const deliver = (subscriber: Subscriber, event: ServerEvent) => {
    try {
      subscriber.deliver(event);
    } catch (error) {
      report(error);
    }
  };
  const notifyAbout = (subscriber: Subscriber, uris: readonly string[]) => {
    for (const uri of uris) deliver(subscriber, { kind: 'resource_updated', uri });
  };

  const bus: ServerEventBus = {
    subscribe(listener) {
      const scope = listening.getStore();
      if (!scope) {
        report(new Error('A subscriptions/listen stream was opened outside a caller scope; it will hear nothing.'));
        return () => {};
      }
      const subscriber: Subscriber = { scope, deliver: listener };
      const set = byOrg.get(scope.orgId) ?? new Set();
      set.add(subscriber);
      byOrg.set(scope.orgId, set);
      open++;
      let live = true;
      return () => {
        if (!live) return;
        live = false;
        open--;
        set.delete(subscriber);
        if (set.size === 0 && byOrg.get(scope.orgId) === set) byOrg.delete(scope.orgId);
      };
    },
    // What the SDK's `handler.notify` publishes. A list change names no tenant's data and goes to
    // every stream (the router passes it on only where the filter asked for it); a resource
    // update without an org cannot be routed safely and is dropped.
    publish(event) {
      if (event.kind === 'resource_updated') {
        report(new Error(`resource_updated for ${event.uri} published without an org: dropped`));
        return;
      }
      for (const set of byOrg.values()) for (const subscriber of set) deliver(subscriber, event);
    },
  };

  return {
    bus,
    changed(orgId, planId, part) {
      for (const subscriber of byOrg.get(orgId) ?? [])
        notifyAbout(subscriber, urisChangedBy(subscriber.scope.uris.get(planId), part));
    },
    resumed() {
      for (const set of byOrg.values())
        for (const subscriber of set)
          for (const uris of subscriber.scope.uris.values()) notifyAbout(subscriber, urisChangedBy(uris, 'plan'));
    },
    capabilitiesFor: (era) => (era === 'modern' ? SUBSCRIBE_CAPABILITY : undefined),
    openCount: () => open,
    close() {
      closed = true;
      for (const set of byOrg.values()) for (const subscriber of set) subscriber.scope.stop.abort();
    },
    serve(handler) {
      return {
        ...handler,
        fetch: (request, requestOptions) => {
          const listen = listenRequestOf(requestOptions);
          // Without a principal (never the case behind the gateway's auth) the stream hears nothing.
          // The HTTP layer has refused a listen beyond the credential's scopes (required-scope.ts).
          if (!listen?.principal) return handler.fetch(request, requestOptions);
          if (closed) return Promise.resolve(shuttingDown(jsonRpcIdOf(requestOptions?.parsedBody)));
          const stop = new AbortController();
          const scope: ListenScope = {
            orgId: listen.principal.orgId.toLowerCase(),
            uris: urisByPlan(listen.uris),
            stop,
          };
          // The stream ends when the client goes away or when this process stops serving it.
          const stoppable = new Request(request, { signal: AbortSignal.any([request.signal, stop.signal]) });
          return listening.run(scope, () => handler.fetch(stoppable, requestOptions));
        },
      };
    },
  };
}

/** A `subscriptions/listen` request, its caller, and the resource URIs its filter names. */
function listenRequestOf(requestOptions: McpHandlerRequestOptions | undefined) {
  const body = requestOptions?.parsedBody as
    { method?: unknown; params?: { notifications?: { resourceSubscriptions?: unknown } } } | null | undefined;
  if (!body || typeof body !== 'object' || body.method !== 'subscriptions/listen') return undefined;
  const requested = body.params?.notifications?.resourceSubscriptions;
  return { principal: callerOfRequest(requestOptions)?.principal, uris: subscribedUris(requested) };
}

/** The resource URIs a listen request's filter names (what it asks to hear about). */
export function subscribedUris(requested: unknown): string[] {
  return Array.isArray(requested) ? requested.filter((uri): uri is string => typeof uri === 'string') : [];
}

function shuttingDown(id: ReturnType<typeof jsonRpcIdOf>): Response {
  const message = 'This gateway is shutting down; listen again and another replica will serve the stream.';
  return Response.json(jsonRpcErrorBody('UNAVAILABLE', message, undefined, id), {
    status: 503,
    headers: { 'retry-after': '1' },
  });
}
