import type { artifactV1 } from '@quarry/contracts';
import { scanInstructions, type ScanInput } from '@quarry/instruction-flags';
import { instructionFlagKinds, type InstructionFlagKindName } from '../enums.js';
import type { StoredFlag } from '../store/schema.js';

/**
 * Instruction flags on stored sources (docs/adr/0062-instruction-flags.md): every artifact's
 * text is scanned when it is stored, in the storing call's own work before its transaction
 * opens, and the flags are written in the same row; reads and search hits return them so the
 * model that reads the content treats those passages as data. Nothing is refused for a flag.
 */

/** The `instruction_flags` column of a row about to be stored. */
export function flagsColumn(input: ScanInput): string {
  return JSON.stringify(scanInstructions(input));
}

/** HTML sources are scanned before conversion too (hidden text); other formats by their text only. */
export function documentScanInput(text: string, title: string, format: string, original: Uint8Array): ScanInput {
  return { text, title, ...(format === 'html' ? { html: new TextDecoder().decode(original) } : {}) };
}

/** Stored flags as the proto gives them (the first `limit`); a row not scanned yet has none. */
export function instructionFlagsOf(
  stored: readonly StoredFlag[] | null,
  limit = Infinity,
): artifactV1.InstructionFlag[] {
  return (stored ?? []).slice(0, limit).map((flag) => ({
    kind: instructionFlagKinds.valueOf(flag.kind as InstructionFlagKindName),
    start: flag.start,
    end: flag.end,
    excerpt: flag.excerpt,
  }));
}
