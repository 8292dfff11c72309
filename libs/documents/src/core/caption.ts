const CAPTION = /^(fig(ure)?\.?|plate|chart)\s*[0-9ivxlc]+[a-z]?\b/i;

/** A figure caption: text that opens with "Figure 3.", "Fig. 2:", "Figure IV —", "Plate 4". */
export function isCaption(text: string): boolean {
  return CAPTION.test(text.trim());
}
