import { randomUUID } from 'node:crypto';
import { artifactV1 } from '@quarry/contracts';
import { createGrpcClient, createIdentitySigner, type GrpcClient, type ServiceTarget } from '@quarry/grpc';

/** A source as the indexes name it. */
interface SourceRef {
  sourceTable: string;
  sourceId: string;
}

/** Who asks: the caller's org (and request, for the artifact store's log). */
interface StoredSourcesScope {
  orgId: string;
  requestId?: string;
}

/**
 * Which of the sources an index returned are still stored, as `storedKey`s. The artifact store's
 * rows decide, not the indexes: a deletion commits there at once, its index entries go only when
 * the indexer gets to its content.deleted event.
 */
export type StoredSources = (scope: StoredSourcesScope, sources: readonly SourceRef[]) => Promise<StoredKeys>;

/**
 * The `storedKey`s of the stored sources, with the instruction flags of those that have any
 * (keyed the same way; docs/adr/0062-instruction-flags.md): the rows give both at once.
 */
export interface StoredKeys extends ReadonlySet<string> {
  readonly flags?: ReadonlyMap<string, artifactV1.InstructionFlag[]>;
}

/** The key a StoredSources answer holds for a source. */
export const storedKey = (s: SourceRef): string => `${s.sourceTable}/${s.sourceId.toLowerCase()}`;

const SERVICE_NAME = 'search';

/** The stored-table name of each SourceIds list (anything else is never reported stored). */
const LISTS = {
  research_artifact: 'artifactIds',
  research_output: 'outputIds',
  extraction_result: 'extractionResultIds',
} as const satisfies Record<string, keyof artifactV1.SourceIds>;

/**
 * StoredSources by the artifact store's ExistingSources at `address` (one call per search), as
 * this service acting for the caller's org: row-level security there keeps the answer to that org.
 * `address` may be a function, read at the first call (in one process the artifact store may start later).
 */
export function createStoredSourcesClient(options: {
  address: ServiceTarget | (() => ServiceTarget);
  identityKey: string;
}): {
  stored: StoredSources;
  close(): void;
} {
  const signer = createIdentitySigner({ key: options.identityKey, issuer: SERVICE_NAME });
  let client: GrpcClient<typeof artifactV1.ArtifactServiceService> | undefined;
  const connect = () => {
    const address = typeof options.address === 'function' ? options.address() : options.address;
    client ??= createGrpcClient(artifactV1.ArtifactServiceClient, address, { signer });
    return client;
  };
  const stored: StoredSources = async (scope, sources) => {
    const asked: artifactV1.SourceIds = { artifactIds: [], outputIds: [], extractionResultIds: [] };
    for (const s of sources) {
      const list = LISTS[s.sourceTable as keyof typeof LISTS];
      if (list) asked[list].push(s.sourceId);
    }
    if (asked.artifactIds.length + asked.outputIds.length + asked.extractionResultIds.length === 0) return new Set();
    const { existing, flagged } = await connect().call(
      'existingSources',
      { sources: asked },
      {
        identity: {
          kind: 'service',
          serviceName: SERVICE_NAME,
          orgId: scope.orgId,
          requestId: scope.requestId ?? randomUUID(),
        },
      },
    );
    const keys: Set<string> & { flags?: Map<string, artifactV1.InstructionFlag[]> } = new Set<string>();
    for (const [sourceTable, list] of Object.entries(LISTS)) {
      for (const sourceId of existing?.[list] ?? []) keys.add(storedKey({ sourceTable, sourceId }));
    }
    // Only artifacts carry flags.
    keys.flags = new Map(
      flagged.map((f) => [storedKey({ sourceTable: 'research_artifact', sourceId: f.id }), f.flags]),
    );
    return keys;
  };
  return { stored, close: () => client?.close() };
}
