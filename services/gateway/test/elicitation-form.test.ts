import { describe, expect, it } from '@jest/globals';
import { toolCatalogue } from '@quarry/contracts';
import { checkAnswer, formRequest } from '../src/mcp/call-modes/elicitation-form.js';

// The review form as request_user_review's catalogue entry defines it: its message, and the check
// of what a client sends back (untrusted) before anything is recorded.

const spec = toolCatalogue.find((t) => t.name === 'request_user_review')!.elicitation!;

describe('the form’s message', () => {
  it('is the lead, the summary and the questions as a list', () => {
    const { message, requestedSchema } = formRequest(spec, {
      summary: '  Twelve sources.  ',
      questions: ['Enough?', 'Preprints?'],
    });
    expect(message).toBe(`${spec.lead}\n\nTwelve sources.\n\nQuestions:\n- Enough?\n- Preprints?`);
    expect(requestedSchema).toBe(spec.form);
  });

  it('leaves out what the call did not send', () => {
    expect(formRequest(spec, { summary: 'Done.' }).message).toBe(`${spec.lead}\n\nDone.`);
    expect(formRequest(spec, { summary: 'Done.', questions: [] }).message).toBe(`${spec.lead}\n\nDone.`);
  });
});

describe('the check of an accepted answer', () => {
  it.each([
    [{ decision: 'approve' }, { decision: 'approve' }],
    [
      { decision: 'modify', feedback: 'More.' },
      { decision: 'modify', feedback: 'More.' },
    ],
    [{ decision: 'skip', feedback: '   ' }, { decision: 'skip' }],
    [{ decision: 'reject', feedback: null }, { decision: 'reject' }],
  ])('keeps %j as %j', (content, answer) => {
    expect(checkAnswer(spec.form, content)).toEqual({ answer });
  });

  it.each([
    ['nothing', undefined, /not an object/],
    ['an array', ['approve'], /not an object/],
    ['no decision', {}, /"decision" must be answered/],
    [
      'a decision spelt otherwise',
      { decision: 'Approve' },
      /"decision" must be one of approve, reject, modify, skip, got "Approve"/,
    ],
    ['a decision that is not text', { decision: 3 }, /"decision" must be one of/],
    ['feedback that is not text', { decision: 'approve', feedback: 5 }, /"feedback" must be text/],
    [
      'feedback too long',
      { decision: 'approve', feedback: 'x'.repeat(10_001) },
      /"feedback" must have at most 10000 characters/,
    ],
    ['a field the form does not have', { decision: 'approve', stepId: 'other' }, /"stepId" is not a field of the form/],
  ])('refuses %s', (_, content, problem) => {
    const checked = checkAnswer(spec.form, content);
    expect('problem' in checked && checked.problem).toMatch(problem);
  });
});
