import type { ChannelCredentials } from '@grpc/grpc-js';
import { artifactV1, extractionV1, planV1, searchV1 } from '@quarry/contracts';
import { createServiceClient, type ServiceClient } from './service-client.js';
import { createTokenSource, type ServiceAccountCredentials } from './token-source.js';

export interface QuarryClientOptions extends ServiceAccountCredentials {
  /** `host:port` of each service to call; only the ones given are created. */
  addresses: { plan?: string; artifact?: string; search?: string; extraction?: string };
  /** Channel credentials (TLS outside loopback or a cluster network); plaintext when omitted. */
  channelCredentials?: ChannelCredentials;
}

export interface QuarryClient {
  plan: ServiceClient<typeof planV1.PlanServiceService>;
  artifact: ServiceClient<typeof artifactV1.ArtifactServiceService>;
  search: ServiceClient<typeof searchV1.SearchServiceService>;
  extraction: ServiceClient<typeof extractionV1.ExtractionServiceService>;
  close(): void;
}

function missing(name: string): never {
  throw new Error(`No address given for the ${name} service (addresses.${name})`);
}

/**
 * Quarry's services over gRPC, as one service account of one org: every call carries the
 * account's token, and the services apply its org and scopes exactly as they do a user's.
 * Messages are the generated types of @quarry/contracts (proto/ is the source).
 */
export function createQuarryClient(options: QuarryClientOptions): QuarryClient {
  const tokens = createTokenSource(options);
  const open = <D extends Parameters<typeof createServiceClient>[0]>(definition: D, address: string | undefined) =>
    address ? createServiceClient(definition, address, tokens, options.channelCredentials) : undefined;
  const plan = open(planV1.PlanServiceService, options.addresses.plan);
  const artifact = open(artifactV1.ArtifactServiceService, options.addresses.artifact);
  const search = open(searchV1.SearchServiceService, options.addresses.search);
  const extraction = open(extractionV1.ExtractionServiceService, options.addresses.extraction);
  return {
    get plan() {
      return plan ?? missing('plan');
    },
    get artifact() {
      return artifact ?? missing('artifact');
    },
    get search() {
      return search ?? missing('search');
    },
    get extraction() {
      return extraction ?? missing('extraction');
    },
    close() {
      for (const client of [plan, artifact, search, extraction]) client?.close();
    },
  };
}
