import { stringify } from 'csv-stringify/sync';

/**
 * Rows as CSV with a header. Cells a spreadsheet would run as a formula (starting with =, +, -,
 * @, tab or carriage return) are prefixed with a quote (csv-stringify's escape_formulas): the
 * logs hold what callers sent, such as emails and client names.
 */
export function toCsv<T extends object>(rows: readonly T[], columns: ReadonlyArray<keyof T & string>): string {
  return stringify(
    rows.map((row) =>
      columns.map((column) => {
        const value = row[column] as unknown;
        if (value === null || value === undefined) return '';
        if (value instanceof Date) return value.toISOString();
        return typeof value === 'object' ? JSON.stringify(value) : String(value);
      }),
    ),
    { header: true, columns: [...columns], escape_formulas: true },
  );
}
