/** Page numbers as ranges for a message: [3, 4, 5, 8] → "3-5, 8". */
function pageRanges(pages: readonly number[]): string {
  const sorted = [...new Set(pages)].sort((a, b) => a - b);
  const ranges: string[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const first = sorted[i]!;
    while (sorted[i + 1] === sorted[i]! + 1) i++;
    ranges.push(first === sorted[i] ? `${first}` : `${first}-${sorted[i]}`);
  }
  return ranges.join(', ');
}

/** "page 4" or "pages 3-5, 8". */
export function pagesPhrase(pages: readonly number[], noun = 'page'): string {
  return `${noun}${new Set(pages).size === 1 ? '' : 's'} ${pageRanges(pages)}`;
}
