import { artifactV1, enumNames, searchV1 } from '@quarry/contracts';
import type { QueryType, SearchMode } from './core/fusion.js';
import { searchErrors } from './errors.js';

const invalid = (field: string) => searchErrors.INVALID_ARGUMENT({ field, rule: 'must be one of the listed values' });
const sourceTables = enumNames<searchV1.SourceTable, string>(searchV1.SourceTable, invalid);
const artifactTypes = enumNames<artifactV1.ArtifactType, string>(artifactV1.ArtifactType, invalid);
const flagKinds = enumNames<artifactV1.InstructionFlagKind, string>(artifactV1.InstructionFlagKind, invalid);

/**
 * A search hit's instruction flags in one line (`override: "Ignore all previous…"; …`): the
 * `search` tool's hits keep the connector contract's shape, so they carry a string, set only
 * when there are flags (docs/adr/0062-instruction-flags.md).
 */
export function flagsLine(flags: readonly artifactV1.InstructionFlag[]): string | undefined {
  if (flags.length === 0) return undefined;
  return flags.map((f) => `${flagKinds.nameOf(f.kind) ?? 'flag'}: ${JSON.stringify(f.excerpt)}`).join('; ');
}

/** A filter's stored name (`SOURCE_TABLE_RESEARCH_OUTPUT` → `research_output`); UNSPECIFIED or absent means "no filter". */
export function sourceTableFilter(value: searchV1.SourceTable | undefined): string | undefined {
  return value ? sourceTables.required(value, 'sourceTable') : undefined;
}

export function artifactTypeFilter(value: artifactV1.ArtifactType | undefined): string | undefined {
  return value ? artifactTypes.required(value, 'artifactType') : undefined;
}

/** A stored source table name → its enum; a name the proto does not know reads UNSPECIFIED. */
export function sourceTableToProto(name: string): searchV1.SourceTable {
  return sourceTables.valueOf(name, searchV1.SourceTable.SOURCE_TABLE_UNSPECIFIED);
}

const QUERY_TYPES: Readonly<Record<QueryType, searchV1.QueryType>> = {
  keyword: searchV1.QueryType.QUERY_TYPE_KEYWORD,
  balanced: searchV1.QueryType.QUERY_TYPE_BALANCED,
  semantic: searchV1.QueryType.QUERY_TYPE_SEMANTIC,
};

export function queryTypeToProto(type: QueryType): searchV1.QueryType {
  return QUERY_TYPES[type];
}

const searchModes = enumNames<searchV1.SearchMode, SearchMode>(searchV1.SearchMode, invalid);

export function searchModeToProto(mode: SearchMode): searchV1.SearchMode {
  return searchModes.valueOf(mode, searchV1.SearchMode.SEARCH_MODE_HYBRID);
}

/** The requested mode; UNSPECIFIED or absent means hybrid. */
export function searchModeOf(value: searchV1.SearchMode | undefined): SearchMode {
  return value ? searchModes.required(value, 'mode') : 'hybrid';
}
