import { describe, expect, it } from '@jest/globals';
import { VIEWS_CSS } from '@quarry/views';

describe("the views' stylesheet", () => {
  it('loads nothing (no url(), no @import), so it fits a CSP that allows no other origin', () => {
    expect(VIEWS_CSS).not.toMatch(/url\(|@import|expression\(/i);
  });

  it('colours every plan and step status that is not plain (done, working, waiting, failed)', () => {
    for (const status of ['completed', 'in_progress', 'executing', 'awaiting_review', 'awaiting_input', 'stalled'])
      expect(VIEWS_CSS).toContain(`.q-status-${status}`);
    for (const status of ['failed', 'cancelled']) expect(VIEWS_CSS).toContain(`.q-status-${status}`);
  });
});
