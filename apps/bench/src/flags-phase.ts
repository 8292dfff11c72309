import { evaluateFlags, loadFlagCorpus, scanInstructions } from '@quarry/instruction-flags';
import { percentile } from './measure.js';
import type { Phase } from './phase.js';
import type { Results } from './report.js';

/** Runs of the scanner timed per text (after as many to warm it up). */
const TIMED_RUNS = 20;

/** The median time of `fn` over TIMED_RUNS runs, after as many unmeasured ones, in ms. */
function medianMs(fn: () => unknown): number {
  for (let i = 0; i < TIMED_RUNS; i++) fn();
  const times: number[] = [];
  for (let i = 0; i < TIMED_RUNS; i++) {
    const began = performance.now();
    fn();
    times.push(performance.now() - began);
  }
  return percentile(times, 50);
}

/**
 * Instruction flags (ADR 0062): the scanner's precision and recall on its labelled set — the part
 * it was tuned on and the held-out part it never was — and what it costs per KB of text, as the
 * artifact store pays it inside every storing call: 100 KB of benign research text (the benign
 * items of the set, repeated), and the same for HTML pages (scanned before conversion as well).
 */
export const flagsPhase: Phase = {
  name: 'flags',
  async run({ progress }) {
    const tuning = evaluateFlags(loadFlagCorpus('tuning'));
    const heldOut = evaluateFlags(loadFlagCorpus('held-out'));
    progress(
      `held-out: ${heldOut.benign} benign, ${heldOut.injections} injections; missed ${heldOut.missed.join(', ') || 'none'}; false positives ${heldOut.falsePositives.join(', ') || 'none'}`,
    );
    const items = [...loadFlagCorpus('tuning'), ...loadFlagCorpus('held-out')].filter((i) => i.label === 'benign');
    const fill = (parts: string[], size: number) => {
      const joined = parts.join('\n\n');
      return joined.repeat(Math.ceil(size / joined.length)).slice(0, size);
    };
    const text = fill(
      items.filter((i) => !i.html).map((i) => i.text),
      100 * 1024,
    );
    const html = fill(
      items.filter((i) => i.html).map((i) => i.html!),
      100 * 1024,
    );
    const textMs = medianMs(() => scanInstructions({ text }));
    const htmlMs = medianMs(() => scanInstructions({ text: '', html }));
    const score = (value: number) => ({ value, unit: 'score' });
    return {
      flags_heldout_precision: score(heldOut.precision),
      flags_heldout_recall: score(heldOut.recall),
      flags_tuning_precision: score(tuning.precision),
      flags_tuning_recall: score(tuning.recall),
      flags_scan_text_ms_per_kb: { value: textMs / 100, unit: 'ms/KB' },
      flags_scan_html_ms_per_kb: { value: htmlMs / 100, unit: 'ms/KB' },
    } satisfies Results;
  },
};
