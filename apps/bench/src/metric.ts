/** One figure: Quarry's value, and where a baseline ran in the same run, its value and value ÷ baseline. */
export interface Metric {
  value: number;
  unit: string;
  baseline?: number;
  ratio?: number;
}
