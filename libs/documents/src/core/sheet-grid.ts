/** A cell reference's zero-based column: "A1" → 0, "AB12" → 27; undefined when it is not one. */
export function columnIndex(reference: string): number | undefined {
  const letters = /^([A-Z]{1,3})\d+$/i.exec(reference)?.[1];
  if (!letters) return undefined;
  let index = 0;
  for (const letter of letters.toUpperCase()) index = index * 26 + (letter.charCodeAt(0) - 64);
  return index - 1;
}

/** Rows of cells placed by column (gaps filled with ''), trailing empty cells and rows dropped. */
export function gridRows(rows: readonly { cells: readonly { column: number; value: string }[] }[]): string[][] {
  const grid = rows.map(({ cells }) => {
    const row: string[] = [];
    for (const { column, value } of cells) {
      while (row.length < column) row.push('');
      row[column] = value;
    }
    while (row.length > 0 && row[row.length - 1] === '') row.pop();
    return row;
  });
  while (grid.length > 0 && grid[grid.length - 1]!.length === 0) grid.pop();
  return grid;
}

const escapeCell = (value: string) => value.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

/** A sheet's rows as a Markdown table, its first row the header, every row as wide as the widest. */
export function markdownTable(rows: readonly string[][]): string {
  const width = Math.max(0, ...rows.map((row) => row.length));
  if (width === 0) return '';
  const line = (row: readonly string[]) =>
    `| ${Array.from({ length: width }, (_, i) => escapeCell(row[i] ?? '')).join(' | ')} |`;
  const [header, ...body] = rows;
  return [line(header!), `|${' --- |'.repeat(width)}`, ...body.map(line)].join('\n');
}
