import { artifactV1 } from '@quarry/contracts';
import { artifactErrors } from './errors.js';

export type ArtifactType = 'analysis' | 'synthesis' | 'comparison' | 'summary' | 'source_list' | 'finding';
export type MediaType = 'conversation' | 'markdown' | 'html' | 'word' | 'excel' | 'powerpoint';
export type Grounding = 'exact' | 'normalised' | 'numeric' | 'date' | 'fuzzy' | 'none';

/** Proto enums (ARTIFACT_TYPE_SOURCE_LIST) ↔ stored names (source_list): the prefix dropped, lowercased. */
function codec<P extends number, C extends string>(
  prefix: string,
  toJson: (v: P) => string,
  fromJson: (v: string) => P,
  field: string,
) {
  return {
    /** `at` names the field in the error when it is not the default (e.g. `fields[2].grounding`). */
    toCore(value: P, at = field): C {
      const name = toJson(value);
      if (!name.startsWith(prefix) || name.endsWith('_UNSPECIFIED') || name === 'UNRECOGNIZED') {
        throw artifactErrors.INVALID_ARGUMENT({ field: at, rule: 'is required and must be one of the listed values' });
      }
      return name.slice(prefix.length).toLowerCase() as C;
    },
    toProto(value: C): P {
      return fromJson(`${prefix}${value.toUpperCase()}`);
    },
  };
}

export const artifactTypes = codec<artifactV1.ArtifactType, ArtifactType>(
  'ARTIFACT_TYPE_',
  artifactV1.artifactTypeToJSON,
  artifactV1.artifactTypeFromJSON,
  'artifactType',
);
export const mediaTypes = codec<artifactV1.MediaType, MediaType>(
  'MEDIA_TYPE_',
  artifactV1.mediaTypeToJSON,
  artifactV1.mediaTypeFromJSON,
  'mediaType',
);
export const groundings = codec<artifactV1.GroundingKind, Grounding>(
  'GROUNDING_KIND_',
  artifactV1.groundingKindToJSON,
  artifactV1.groundingKindFromJSON,
  'grounding',
);
