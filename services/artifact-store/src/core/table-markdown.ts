/**
 * A table's rows as a GitHub-flavoured markdown table, the first row its header: cells padded to
 * the widest row, pipes escaped, line breaks inside a cell as <br>. Pure.
 */
export function tableMarkdown(rows: readonly (readonly string[])[]): string {
  const width = Math.max(1, ...rows.map((r) => r.length));
  const cell = (text: string | undefined) => (text ?? '').trim().replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>') || ' ';
  const line = (row: readonly string[]) => `| ${Array.from({ length: width }, (_, i) => cell(row[i])).join(' | ')} |`;
  const [header = [], ...body] = rows;
  return [line(header), `|${' --- |'.repeat(width)}`, ...body.map(line)].join('\n');
}
