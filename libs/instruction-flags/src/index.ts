// @quarry/instruction-flags: a pure scanner for text in stored content that reads as
// instructions to a model (docs/adr/0062-instruction-flags.md), and its labelled evaluation set.
export { scanInstructions, type ScanInput } from './core/scan.js';
export type { InstructionFlag, InstructionFlagKind } from './core/flag.js';
export {
  evaluateFlags,
  loadFlagCorpus,
  type CorpusSplit,
  type FlagEvaluation,
  type LabelledItem,
} from './evaluation.js';
