import { readFileSync } from 'node:fs';
import { scanInstructions } from './core/scan.js';

/**
 * The labelled set the scanner is measured on (corpus/): benign research text — abstracts,
 * methods sections, code from papers, web pages, and papers about prompt injection, the hard
 * negatives — and planted injections, plain and obfuscated. `tuning` is what the scanner was
 * tuned on; `held-out` was written apart and never tuned on.
 */
export interface LabelledItem {
  id: string;
  label: 'benign' | 'injection';
  /** Benign: abstract, methods, code, about_injection, web, other. */
  category?: string;
  /** Injection: the kind planted and how it was disguised. */
  kind?: string;
  obfuscation?: string;
  text: string;
  html?: string;
}

export type CorpusSplit = 'tuning' | 'held-out';

export function loadFlagCorpus(split: CorpusSplit): LabelledItem[] {
  return JSON.parse(readFileSync(new URL(`../corpus/${split}.json`, import.meta.url), 'utf8')) as LabelledItem[];
}

export interface FlagEvaluation {
  items: number;
  benign: number;
  injections: number;
  precision: number;
  recall: number;
  /** Ids of benign items flagged and injections missed. */
  falsePositives: string[];
  missed: string[];
  /** Characters scanned and the time it took. */
  chars: number;
  ms: number;
}

/** An item counts as flagged when the scanner returns any flag for it. */
export function evaluateFlags(items: readonly LabelledItem[]): FlagEvaluation {
  let tp = 0;
  let chars = 0;
  const falsePositives: string[] = [];
  const missed: string[] = [];
  const began = performance.now();
  for (const item of items) {
    const flagged = scanInstructions({ text: item.text, ...(item.html ? { html: item.html } : {}) }).length > 0;
    chars += item.text.length + (item.html?.length ?? 0);
    if (item.label === 'injection') {
      if (flagged) tp++;
      else missed.push(item.id);
    } else if (flagged) falsePositives.push(item.id);
  }
  const ms = performance.now() - began;
  const injections = items.filter((i) => i.label === 'injection').length;
  return {
    items: items.length,
    benign: items.length - injections,
    injections,
    precision: tp + falsePositives.length === 0 ? 1 : tp / (tp + falsePositives.length),
    recall: injections === 0 ? 1 : tp / injections,
    falsePositives,
    missed,
    chars,
    ms,
  };
}
