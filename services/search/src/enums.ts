import { artifactV1, searchV1 } from '@quarry/contracts';
import type { QueryType } from './core/fusion.js';
import { searchErrors } from './errors.js';

/**
 * Proto enums ↔ the names stored on every chunk (`SOURCE_TABLE_RESEARCH_OUTPUT` ↔
 * `research_output`): the prefix dropped, lowercased. UNSPECIFIED (or absent) means "no filter".
 */
function filterCodec<P extends number>(prefix: string, unspecified: P, toJson: (v: P) => string, field: string) {
  return (value: P | undefined): string | undefined => {
    if (value === undefined || value === unspecified) return undefined;
    const name = toJson(value);
    if (!name.startsWith(prefix))
      throw searchErrors.INVALID_ARGUMENT({ field, rule: 'must be one of the listed values' });
    return name.slice(prefix.length).toLowerCase();
  };
}

export const sourceTableFilter = filterCodec<searchV1.SourceTable>(
  'SOURCE_TABLE_',
  searchV1.SourceTable.SOURCE_TABLE_UNSPECIFIED,
  searchV1.sourceTableToJSON,
  'sourceTable',
);
export const artifactTypeFilter = filterCodec<artifactV1.ArtifactType>(
  'ARTIFACT_TYPE_',
  artifactV1.ArtifactType.ARTIFACT_TYPE_UNSPECIFIED,
  artifactV1.artifactTypeToJSON,
  'artifactType',
);

/** A stored source table name → its enum; a name the proto does not know reads UNSPECIFIED. */
export function sourceTableToProto(name: string): searchV1.SourceTable {
  const value = searchV1.sourceTableFromJSON(`SOURCE_TABLE_${name.toUpperCase()}`);
  return value === searchV1.SourceTable.UNRECOGNIZED ? searchV1.SourceTable.SOURCE_TABLE_UNSPECIFIED : value;
}

const QUERY_TYPES: Readonly<Record<QueryType, searchV1.QueryType>> = {
  keyword: searchV1.QueryType.QUERY_TYPE_KEYWORD,
  balanced: searchV1.QueryType.QUERY_TYPE_BALANCED,
  semantic: searchV1.QueryType.QUERY_TYPE_SEMANTIC,
};

export function queryTypeToProto(type: QueryType): searchV1.QueryType {
  return QUERY_TYPES[type];
}
