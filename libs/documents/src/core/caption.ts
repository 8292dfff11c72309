const CAPTION = /^(fig(ure)?\.?|plate|chart)\s*[0-9ivxlc]+[a-z]?\b/i;
const TABLE_CAPTION = /^tab(le)?\.?\s*[0-9ivxlc]+[a-z]?\b/i;

/** A figure caption: text that opens with "Figure 3.", "Fig. 2:", "Figure IV —", "Plate 4". */
export function isCaption(text: string): boolean {
  return CAPTION.test(text.trim());
}

/** A table caption: text that opens with "Table 3.", "Tab. 2:", "Table IV —". */
export function isTableCaption(text: string): boolean {
  return TABLE_CAPTION.test(text.trim());
}
