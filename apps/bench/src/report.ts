import type { Metric } from './metric.js';
import { checkTarget, TARGETS } from './targets.js';

/** Every figure of a run by its key (e.g. p1_get_plan_status_p50_ms); this is also the `--json` file's shape. */
export type Results = Record<string, Metric>;

/** A metric compared with a baseline measured in the same run. */
export function compared(value: number, baseline: number, unit: string): Metric {
  return { value, unit, baseline, ratio: value / baseline };
}

function formatNumber(value: number | undefined, unit = ''): string {
  if (value === undefined) return '';
  if (unit === 'ms' || unit === '×') return value.toFixed(3);
  if (unit === 'score') return value.toFixed(4); // nDCG, recall: 0–1, differences in the third decimal matter
  return Math.abs(value) >= 100 ? Math.round(value).toString() : value.toFixed(2);
}

/** The one table a run prints: metric, value, unit, baseline, ratio, and the target where there is one. */
export function formatTable(results: Results): string {
  const rows = [
    ['metric', 'value', 'unit', 'baseline', 'ratio', 'target', 'met'],
    ...Object.entries(results).map(([key, m]) => {
      const target = TARGETS[key] && checkTarget(TARGETS[key], m);
      return [
        key,
        formatNumber(m.value, m.unit),
        m.unit,
        formatNumber(m.baseline, m.unit),
        m.ratio === undefined ? '' : m.ratio.toFixed(2),
        target?.text ?? '',
        target ? (target.met ? 'yes' : 'NO') : '',
      ];
    }),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const line = (row: string[]) =>
    row
      .map((cell, column) =>
        column === 0 || column === 2 || column >= 5 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!),
      )
      .join('  ')
      .trimEnd();
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}
