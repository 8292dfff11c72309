/**
 * The text `fetch` returns for a research output: its text; for a binary document its summary
 * (or title), and where the file itself is.
 */
export function outputText(row: {
  media_type: string;
  title: string;
  content_text: string | null;
  content_summary: string | null;
  content_size: number;
}): string {
  if (row.content_text !== null) return row.content_text;
  const summary = row.content_summary ?? row.title;
  return `${summary}\n\n[${row.media_type} document, ${row.content_size} bytes: get_research_output returns the file itself]`;
}
