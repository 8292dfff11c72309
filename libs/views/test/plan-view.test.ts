import { describe, expect, it } from '@jest/globals';
import { planViewFrom, renderPlanView } from '@quarry/views';
import { context, HOSTILE, outputs, status } from './fixtures.js';
import { elementsOf, expectInert } from './inert.js';

describe('the plan view', () => {
  const links = { artifact: (id: string) => `/app/artifacts/${id}`, output: (id: string) => `/app/outputs/${id}` };
  const model = planViewFrom({ status, context, outputs }, links);

  it('merges the status, the context and the deliverables into steps, reviews and links', () => {
    expect(model.steps.map((s) => [s.stepOrder, s.status, s.current])).toEqual([
      [1, 'completed', false],
      [2, 'awaiting_input', true],
      [3, 'failed', false],
      [4, 'pending', false],
    ]);
    expect(model.steps[0]!.result).toBe(`Found ${HOSTILE.script}`);
    expect(model.steps[1]!.result).toContain('"note"');
    expect(model.steps[2]!.failureReason).toBe(HOSTILE.image);
    expect(model.reviews).toEqual([
      { kind: 'requested', at: '2026-11-28T17:40:00Z', stepOrder: 2, note: HOSTILE.breakout },
      { kind: 'decided', at: '2026-11-28T17:41:00Z', stepOrder: 2, decision: 'modify', note: HOSTILE.script },
    ]);
    expect(model.artifacts.map((a) => [a.href, a.details])).toEqual([
      ['/app/artifacts/a1', ['source', 'step 1', 'confidence 0.50']],
      ['/app/artifacts/a2', ['note']],
    ]);
    expect(model.deliverables.map((d) => [d.href, d.details])).toEqual([
      ['/app/outputs/o1', ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', '20.0 KiB']],
      ['/app/outputs/o2', ['text/markdown', '900 bytes']],
    ]);
  });

  it('shows the name, status, progress, steps, reviews, artifacts and deliverables', () => {
    const html = renderPlanView(model);
    const text = html.replace(/<[^>]+>/g, ' ');
    expect(text).toContain('awaiting review');
    expect(text).toContain('33% of 4 steps done');
    expect(text).toContain('confidence 0.87');
    expect(text).toContain('decision  modify');
    expect(text).toContain('Failed: ');
    const hrefs = elementsOf(html).flatMap((e) => (e.attribs.href ? [e.attribs.href] : []));
    expect(hrefs).toEqual(['/app/artifacts/a1', '/app/artifacts/a2', '/app/outputs/o1', '/app/outputs/o2']);
    const progress = elementsOf(html).find((e) => e.name === 'progress');
    expect(progress?.attribs.value).toBe('33');
    expect(elementsOf(html)[0]!.attribs['data-plan-id']).toBe(status.planId);
  });

  it('renders hostile stored content as text: no script, no handler, no javascript: link', () => {
    const withOwnUrls = renderPlanView(planViewFrom({ status, context, outputs }));
    for (const html of [renderPlanView(model), withOwnUrls]) {
      expectInert(html);
      // The hostile strings are still there to read, escaped.
      expect(html).toContain('&lt;script&gt;window.__pwned = 1&lt;/script&gt;');
      expect(html).toContain('&lt;img src=x onerror=&quot;window.__pwned = 1&quot;&gt;');
    }
    // A deliverable whose own url is javascript: is named, not linked; a quarry:// one is not a web link either.
    const own = elementsOf(withOwnUrls).filter((e) => e.name === 'a');
    expect(own).toEqual([]);
    expect(withOwnUrls).toContain('../../&lt;b onmouseover=alert(1)&gt;report&quot;.docx');
  });

  it('shows a plan with nothing yet, and a stalled plan as stalled', () => {
    const bare = planViewFrom({
      status: { ...status, stalled: true, completedSteps: [], currentStep: undefined, pendingSteps: [], totalSteps: 1 },
    });
    const html = renderPlanView(bare);
    expect(html).toContain('q-status-stalled');
    expect(html).toContain('No steps.');
    expect(html).toContain('None stored yet.');
    expect(html).toContain('None delivered yet.');
    expect(html).toContain('of 1 step done');
    expect(html).not.toContain('Reviews');
    expectInert(html);
  });
});
