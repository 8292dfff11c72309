import { artifactV1 } from '@quarry/contracts';
import { artifactErrors } from './errors.js';

export type ArtifactType = 'analysis' | 'synthesis' | 'comparison' | 'summary' | 'source_list' | 'finding';
export type MediaType = 'conversation' | 'markdown' | 'html' | 'word' | 'excel' | 'powerpoint';

/** Proto enums (ARTIFACT_TYPE_SOURCE_LIST) ↔ stored names (source_list): the prefix dropped, lowercased. */
function codec<P extends number, C extends string>(prefix: string, toJson: (v: P) => string, fromJson: (v: string) => P, field: string) {
  return {
    toCore(value: P): C {
      const name = toJson(value);
      if (!name.startsWith(prefix) || name.endsWith('_UNSPECIFIED') || name === 'UNRECOGNIZED') {
        throw artifactErrors.INVALID_ARGUMENT({ field, rule: 'is required and must be one of the listed values' });
      }
      return name.slice(prefix.length).toLowerCase() as C;
    },
    toProto(value: C): P {
      return fromJson(`${prefix}${value.toUpperCase()}`);
    },
  };
}

export const artifactTypes = codec<artifactV1.ArtifactType, ArtifactType>(
  'ARTIFACT_TYPE_', artifactV1.artifactTypeToJSON, artifactV1.artifactTypeFromJSON, 'artifactType');
export const mediaTypes = codec<artifactV1.MediaType, MediaType>('MEDIA_TYPE_', artifactV1.mediaTypeToJSON, artifactV1.mediaTypeFromJSON, 'mediaType');
