import { describe, expect, it } from '@jest/globals';
import { chooseProvider, extractionErrors, type ConfiguredProvider, type SelectionInput } from '../src/index.js';

// Who extracts a call: the caller's mode first; then the automatic order (the client's model by
// sampling, an API provider, the caller's model through a submission handle — never the offline
// heuristic silently), and an explicit EXTRACTION_PROVIDER used as it is.

const input = (configured: ConfiguredProvider, over: Partial<SelectionInput> = {}): SelectionInput => ({
  configured,
  samplingEnabled: true,
  clientSamplingAvailable: false,
  hasAnthropic: false,
  hasOpenAi: false,
  ...over,
});

describe('chooseProvider: auto', () => {
  it.each([
    // samplingEnabled, client can sample, anthropic, openai → choice
    [true, true, true, true, 'sampling'],
    [true, true, false, false, 'sampling'],
    [false, true, true, true, 'anthropic'],
    [false, true, false, false, 'client'],
    [true, false, true, true, 'anthropic'],
    [true, false, false, true, 'openai'],
    [true, false, false, false, 'client'],
  ] as const)(
    'sampling enabled %s, client samples %s, anthropic %s, openai %s → %s',
    (samplingEnabled, clientSamplingAvailable, hasAnthropic, hasOpenAi, expected) => {
      expect(chooseProvider(input('auto', { samplingEnabled, clientSamplingAvailable, hasAnthropic, hasOpenAi }))).toBe(
        expected,
      );
    },
  );
});

describe('chooseProvider: the caller’s mode', () => {
  it('client always hands the caller a handle, offline always uses the heuristic, whatever the server has', () => {
    const all = { clientSamplingAvailable: true, hasAnthropic: true, hasOpenAi: true };
    for (const configured of ['auto', 'anthropic', 'sampling', 'heuristic'] as const) {
      expect(chooseProvider(input(configured, { ...all, mode: 'client' }))).toBe('client');
      expect(chooseProvider(input(configured, { ...all, mode: 'offline' }))).toBe('heuristic');
    }
    expect(chooseProvider(input('auto', { ...all, mode: 'auto' }))).toBe('sampling');
  });
});

describe('chooseProvider: explicit', () => {
  it('uses an explicit API provider or the heuristic even when the client could sample', () => {
    const all = { clientSamplingAvailable: true, hasAnthropic: true, hasOpenAi: true };
    expect(chooseProvider(input('anthropic', all))).toBe('anthropic');
    expect(chooseProvider(input('openai', all))).toBe('openai');
    expect(chooseProvider(input('heuristic', all))).toBe('heuristic');
  });

  it('uses sampling when the client can sample, and refuses with SAMPLING_UNAVAILABLE when it cannot', () => {
    expect(chooseProvider(input('sampling', { clientSamplingAvailable: true, hasAnthropic: true }))).toBe('sampling');
    let thrown: unknown;
    try {
      chooseProvider(input('sampling', { clientSamplingAvailable: false, hasAnthropic: true }));
    } catch (error) {
      thrown = error;
    }
    expect(extractionErrors.SAMPLING_UNAVAILABLE.is(thrown)).toBe(true);
    expect((thrown as Error).message).toContain('did not declare sampling on protocol 2026-07-28');
    expect(() => chooseProvider(input('sampling', { clientSamplingAvailable: true, samplingEnabled: false }))).toThrow(
      /did not declare sampling/,
    );
  });

  it('treats an explicit API provider that was not built as a wiring error', () => {
    expect(() => chooseProvider(input('anthropic'))).toThrow(/ANTHROPIC_API_KEY/);
    expect(() => chooseProvider(input('openai'))).toThrow(/OPENAI_MODEL/);
  });
});
