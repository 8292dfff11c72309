import { artifactV1, enumNames } from '@quarry/contracts';
import type { InstructionFlagKind } from '@quarry/instruction-flags';
import { artifactErrors } from './errors.js';

export type ArtifactType = 'analysis' | 'synthesis' | 'comparison' | 'summary' | 'source_list' | 'finding';
export type MediaType = 'conversation' | 'markdown' | 'html' | 'word' | 'excel' | 'powerpoint';
export type ArtifactSourceName = 'client' | 'subagent' | 'document';
export type Grounding = 'exact' | 'normalised' | 'numeric' | 'date' | 'fuzzy' | 'none';
export type InstructionFlagKindName = InstructionFlagKind;

/** Proto enums ↔ stored names (`ARTIFACT_TYPE_SOURCE_LIST` ↔ `source_list`); a required one that is unset is INVALID_ARGUMENT. */
const invalid = (field: string) =>
  artifactErrors.INVALID_ARGUMENT({ field, rule: 'is required and must be one of the listed values' });

export const artifactTypes = enumNames<artifactV1.ArtifactType, ArtifactType>(artifactV1.ArtifactType, invalid);
export const mediaTypes = enumNames<artifactV1.MediaType, MediaType>(artifactV1.MediaType, invalid);
export const groundings = enumNames<artifactV1.GroundingKind, Grounding>(artifactV1.GroundingKind, invalid);
export const artifactSources = enumNames<artifactV1.ArtifactSource, ArtifactSourceName>(
  artifactV1.ArtifactSource,
  invalid,
);
export const instructionFlagKinds = enumNames<artifactV1.InstructionFlagKind, InstructionFlagKindName>(
  artifactV1.InstructionFlagKind,
  invalid,
);
