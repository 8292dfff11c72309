import { describe, expect, it } from '@jest/globals';
import { progressAt } from '../src/mcp/call-modes/progress.js';

// What a long call reports at a given moment (the timer that sends it: mcp-progress.test.ts).

describe('progressAt', () => {
  it('counts a long poll in seconds against the wait it was asked for, never past it', () => {
    const wait = { kind: 'wait', seconds: 30 } as const;
    expect(progressAt('t', wait, 5_040, 0)).toEqual({
      progressToken: 't',
      progress: 5,
      total: 30,
      message: 'Waiting for a change: 5 of 30 s.',
    });
    expect(progressAt(7, wait, 45_000, 5)).toMatchObject({ progressToken: 7, progress: 30, total: 30 });
    // At the total already: nothing new to say (progress must grow with every notification).
    expect(progressAt(7, wait, 50_000, 30)).toBeUndefined();
  });

  it('counts a model call in elapsed seconds, with no total', () => {
    const model = { kind: 'model' } as const;
    const first = progressAt('t', model, 2_260, 0);
    expect(first).toEqual({ progressToken: 't', progress: 2.2, message: 'The model is working: 2 s so far.' });
    expect(progressAt('t', model, 2_260, 2.2)).toBeUndefined();
    expect(progressAt('t', model, 40, 0)).toBeUndefined();
  });
});
